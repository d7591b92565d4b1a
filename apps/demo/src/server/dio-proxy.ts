import { createHash } from 'node:crypto';
import { ActivePromptSchema } from '@troupe/plugin-dio';
import * as z from 'zod';
import type { DemoDio } from '../compose.js';
import { ApiError } from './api-error.js';

/** The compiled prompt the DIO service has, and whether its SHA-256 matches its text. */
export type ActivePrompt = z.output<typeof ActivePromptSchema> & { readonly hashVerified: boolean };

/** One active lasting requirement. */
export const RequirementSchema = z.object({ id: z.string(), text: z.string(), requestId: z.string(), createdAt: z.string() });
/** An active requirement. */
export type Requirement = z.output<typeof RequirementSchema>;

const RequirementsSchema = z.object({ requirements: z.array(RequirementSchema) });
const RevokeSchema = z.object({ ok: z.literal(true), promptChanged: z.boolean(), versionId: z.string().optional(), compiledPromptSha256: z.string().optional() });
const ServiceErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

const TIMEOUT_MS = 5_000;

/**
 * Talks to the demo's DIO service on the player's behalf. The bearer token stays on the server:
 * the browser only ever sees what these methods return.
 */
export class DioProxy {
  readonly #dio: DemoDio;

  /** @param dio - the demo's DIO connection */
  constructor(dio: DemoDio) {
    this.#dio = dio;
  }

  /**
   * The active compiled prompt of a conversation.
   * @param conversationId - the session id (the RP conversation)
   * @param signal - cancels the request
   * @returns the prompt, or `null` when nothing was compiled yet
   * @throws {ApiError} DIO_UNAVAILABLE (502) or the service's 4xx code
   */
  async activePrompt(conversationId: string, signal?: AbortSignal): Promise<ActivePrompt | null> {
    const response = await this.#call('GET', `/v1/director/active-prompt?${this.#query(conversationId)}`, signal);
    if (response.status === 404) return null;
    const prompt = parse(ActivePromptSchema, await this.#json(response));
    const actual = createHash('sha256').update(prompt.compiledPrompt, 'utf8').digest('hex');
    return { ...prompt, hashVerified: actual === prompt.compiledPromptSha256 };
  }

  /**
   * The active lasting requirements of a conversation, oldest first.
   * @throws {ApiError} DIO_UNAVAILABLE (502) or the service's 4xx code
   */
  async requirements(conversationId: string, signal?: AbortSignal): Promise<Requirement[]> {
    const response = await this.#call('GET', `/v1/director/requirements?${this.#query(conversationId)}`, signal);
    return parse(RequirementsSchema, await this.#json(response)).requirements;
  }

  /**
   * Revokes one requirement; the service recompiles the prompt.
   * @returns whether the prompt changed, and the new version
   * @throws {ApiError} REQUIREMENT_NOT_FOUND (404), DIO_UNAVAILABLE (502)
   */
  async revoke(conversationId: string, requirementId: string, signal?: AbortSignal): Promise<z.output<typeof RevokeSchema>> {
    const path = `/v1/director/requirements/${encodeURIComponent(requirementId)}?${this.#query(conversationId)}`;
    return parse(RevokeSchema, await this.#json(await this.#call('DELETE', path, signal)));
  }

  #query(conversationId: string): string {
    return new URLSearchParams({ userId: this.#dio.userId, conversationId, targetPromptId: this.#dio.targetPromptId }).toString();
  }

  async #call(method: string, path: string, signal?: AbortSignal): Promise<Response> {
    const timeout = AbortSignal.timeout(TIMEOUT_MS);
    try {
      return await fetch(`${this.#dio.url}${path}`, {
        method,
        headers: { authorization: this.#dio.authorization, accept: 'application/json' },
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new ApiError(502, 'DIO_UNAVAILABLE', `The DIO service at ${this.#dio.url} did not answer`, { cause: error });
    }
  }

  // 404 "no prompt yet" is handled by the caller; other 4xx keep the service's code and status.
  async #json(response: Response): Promise<unknown> {
    const body: unknown = await response.json().catch(() => undefined);
    if (response.ok) return body;
    const error = ServiceErrorSchema.safeParse(body);
    if (response.status >= 400 && response.status < 500 && error.success) {
      const status = response.status === 401 || response.status === 403 ? 502 : (response.status as 400 | 404 | 409);
      throw new ApiError(status, error.data.error.code, error.data.error.message);
    }
    throw new ApiError(502, 'DIO_UNAVAILABLE', `The DIO service answered HTTP ${response.status}`);
  }
}

// A malformed answer is the service's fault, not the player's: 502, never 400.
function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ApiError(502, 'DIO_INVALID_RESPONSE', `The DIO service answered in an unexpected format (${parsed.error.issues[0]?.path.join('.') ?? 'body'})`);
  return parsed.data;
}
