import { formatIssues, systemClock } from '@troupe/kernel';
import { readCappedText, runWithin } from '@troupe/kernel/util';
import { type ActivePrompt as DioActivePrompt, DioClient, DioError, MAX_RESPONSE_BYTES } from '@troupe/plugin-dio';
import * as z from 'zod';
import type { DemoDio } from '../compose.js';
import { ApiError } from './api-error.js';

/**
 * The compiled prompt the DIO service has. `hashVerified` is always `true`: {@link DioClient}
 * recomputes the SHA-256 and refuses a prompt whose text does not match (502 `DIO_INVALID_RESPONSE`).
 */
export type ActivePrompt = DioActivePrompt & { readonly hashVerified: true };

/** One active lasting requirement. */
export const RequirementSchema = z.object({ id: z.string(), text: z.string(), requestId: z.string(), createdAt: z.string() });
/** An active requirement. */
export type Requirement = z.output<typeof RequirementSchema>;

const RequirementsSchema = z.object({ requirements: z.array(RequirementSchema) });
const ServiceErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/** Default timeout of one call to the service. */
const TIMEOUT_MS = 5_000;

/**
 * Talks to the demo's DIO service on the player's behalf. The bearer token stays on the server:
 * the browser only ever sees what these methods return.
 */
export class DioProxy {
  readonly #dio: DemoDio;
  readonly #client: DioClient;
  readonly #timeoutMs: number;

  /**
   * @param dio - the demo's DIO connection
   * @param options - `timeoutMs`: how long one call may take (default 5 s)
   * @throws {DioError} DIO_INVALID_REQUEST when the service URL is not http(s)
   */
  constructor(dio: DemoDio, options: { readonly timeoutMs?: number } = {}) {
    this.#dio = dio;
    this.#timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
    // The plugin's client validates the answer, recomputes the hash and caps the body size.
    this.#client = new DioClient(dio.url, this.#timeoutMs);
  }

  /**
   * The active compiled prompt of a conversation.
   * @param conversationId - the session id (the RP conversation)
   * @param signal - cancels the request
   * @param targetPromptId - the character prompt (default: the demo's example character)
   * @returns the prompt, or `null` when nothing was compiled yet
   * @throws {ApiError} DIO_UNAVAILABLE (502), DIO_INVALID_RESPONSE (502: malformed, too large or the hash does not match)
   */
  async activePrompt(conversationId: string, signal?: AbortSignal, targetPromptId = this.#dio.targetPromptId): Promise<ActivePrompt | null> {
    try {
      const prompt = await this.#client.activePrompt(
        { userId: this.#dio.userId, rpConversationId: conversationId, targetPromptId, userAuthorization: this.#dio.authorization },
        signal ? { signal } : {},
      );
      return prompt ? { ...prompt, hashVerified: true } : null;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw fromDioError(error, this.#dio.url);
    }
  }

  /**
   * The active lasting requirements of a conversation, oldest first.
   * @throws {ApiError} DIO_UNAVAILABLE (502) or the service's 4xx code
   */
  async requirements(conversationId: string, signal?: AbortSignal, targetPromptId = this.#dio.targetPromptId): Promise<Requirement[]> {
    const response = await this.#call('GET', `/v1/director/requirements?${this.#query(conversationId, targetPromptId)}`, signal);
    return parse(RequirementsSchema, await this.#json(response), this.#dio.url).requirements;
  }

  #query(conversationId: string, targetPromptId: string): string {
    return new URLSearchParams({ userId: this.#dio.userId, conversationId, targetPromptId }).toString();
  }

  async #call(method: string, path: string, signal: AbortSignal = new AbortController().signal): Promise<Response> {
    const unavailable = (cause?: unknown) => new ApiError(502, 'DIO_UNAVAILABLE', `The DIO service at ${this.#dio.url} did not answer${cause instanceof Error ? ` (${cause.message})` : ''}`, cause === undefined ? {} : { cause });
    const timeoutMs = this.#timeoutMs;
    try {
      // The kernel's one deadline helper: the request's signal follows the caller's and aborts at the limit.
      return await runWithin(systemClock, timeoutMs, signal, () => unavailable(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), (requestSignal) =>
        fetch(`${this.#dio.url}${path}`, {
          method,
          headers: { authorization: this.#dio.authorization, accept: 'application/json' },
          signal: requestSignal,
        }),
      );
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (ApiError.isInstance(error)) throw error;
      throw unavailable(error);
    }
  }

  // Other 4xx keep the service's code and status. The body is read with a size cap: a broken or
  // hostile service must not make the web server buffer without bound.
  async #json(response: Response): Promise<unknown> {
    const text = await readCapped(response, MAX_RESPONSE_BYTES);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (response.ok) return body;
    const error = ServiceErrorSchema.safeParse(body);
    if (response.status >= 400 && response.status < 500 && error.success) {
      const status = response.status === 401 || response.status === 403 ? 502 : (response.status as 400 | 404 | 409);
      throw new ApiError(status, error.data.error.code, error.data.error.message);
    }
    throw new ApiError(502, 'DIO_UNAVAILABLE', `The DIO service at ${this.#dio.url} answered HTTP ${response.status}`);
  }
}

/**
 * Reads a response body as UTF-8, refusing more than `maxBytes`.
 * @param response - the response
 * @param maxBytes - the cap
 * @returns the text
 * @throws {ApiError} DIO_INVALID_RESPONSE (502) when the body is larger
 */
export async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const text = await readCappedText(response.body, maxBytes);
  if (text === undefined) throw new ApiError(502, 'DIO_INVALID_RESPONSE', `The DIO service answered with more than ${maxBytes} bytes`);
  return text;
}

// The client's failures as API answers: a malformed or unverifiable prompt is the service's fault (502).
function fromDioError(error: unknown, url: string): unknown {
  if (!DioError.isInstance(error)) return error;
  if (error.code === 'DIO_INVALID_RESPONSE' || error.code === 'DIO_HASH_MISMATCH' || error.code === 'DIO_IDENTITY_MISMATCH') {
    return new ApiError(502, 'DIO_INVALID_RESPONSE', `The active prompt from the DIO service at ${url} was refused: ${error.message}`, { cause: error });
  }
  return new ApiError(502, 'DIO_UNAVAILABLE', `The DIO service at ${url} did not answer properly: ${error.message}`, { cause: error });
}

// A malformed answer is the service's fault, not the player's: 502, never 400.
function parse<S extends z.ZodType>(schema: S, body: unknown, url: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ApiError(502, 'DIO_INVALID_RESPONSE', `The DIO service at ${url} answered in an unexpected format (${formatIssues(parsed.error, { root: 'body' })})`);
  return parsed.data;
}
