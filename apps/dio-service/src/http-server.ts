import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { describeError } from '@troupe/kernel/util';
import { formatIssues, type Logger, silentLogger } from '@troupe/kernel';
import { DIO_ID_PATTERN, DioUserIdSchema, ScheduleRequestSchema } from '@troupe/plugin-dio';
import * as z from 'zod';
import type { ConversationQuery, DioService } from './dio-service.js';
import { basePromptFromCard, CardCharacterSchema } from './card-prompt.js';
import { ServiceError } from './service-error.js';

/** Largest request body accepted (bytes). */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/** Options of {@link createDioServer}. */
export interface DioServerOptions {
  /** Bearer token → user id. */
  readonly tokens: ReadonlyMap<string, string>;
  /** Bearer token for `PUT /v1/prompts/{id}`; when absent, that endpoint answers 403. */
  readonly adminToken?: string;
  readonly maxBodyBytes?: number;
  readonly logger?: Logger;
}

const PromptBodySchema = z.union([
  z.object({ content: z.string().min(1).max(50_000), characterName: z.string().min(1).max(200).optional() }).strict(),
  z.object({ character: CardCharacterSchema, user: z.string().min(1).max(200).optional() }).strict(),
]);
const ForkBodySchema = z
  .object({
    userId: DioUserIdSchema,
    targetPromptId: z.string().regex(DIO_ID_PATTERN),
    fromConversationId: z.string().regex(DIO_ID_PATTERN),
    toConversationId: z.string().regex(DIO_ID_PATTERN),
    keepRequestIds: z.array(z.string().regex(DIO_ID_PATTERN)).max(10_000).optional(),
  })
  .strict();
const QuerySchema = z.object({ userId: DioUserIdSchema, conversationId: z.string().regex(DIO_ID_PATTERN), targetPromptId: z.string().regex(DIO_ID_PATTERN) });

/**
 * The reference service's HTTP API on `node:http`:
 * - `POST /v1/chat` — submit a requirement (202 acceptance)
 * - `GET /v1/director/tasks/by-request/{requestId}` — the caller's task with that request id (another
 *   user's task of the same id is invisible: 404)
 * - `GET /v1/director/active-prompt?userId&conversationId&targetPromptId` — latest version (404 = none)
 * - `GET /v1/director/requirements?userId&conversationId&targetPromptId` — active requirements
 * - `DELETE /v1/director/requirements/{requirementId}?userId&conversationId&targetPromptId` — revoke + recompile
 * - `POST /v1/director/conversations/fork` — `{userId, targetPromptId, fromConversationId, toConversationId, keepRequestIds?}`:
 *   a branched RP session's conversation starts with the source's (kept) requirements
 * - `PUT /v1/prompts/{targetPromptId}` (admin token) — register a base prompt `{content, characterName?}`,
 *   or a card's fields `{character: {name, nickname?, description?, personality?, scenario?}, user?}`
 *   (rendered into the character's full definition)
 * - `GET /healthz`
 * Errors are `{ok:false, error:{code, message}}`. The Authorization header is never logged.
 * @param service - the behaviour
 * @param options - tokens, admin token, body cap, logger
 * @returns an unstarted server (call `listen`)
 */
export function createDioServer(service: DioService, options: DioServerOptions): Server {
  const logger = options.logger ?? silentLogger;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const server = createServer((request, response) => {
    const controller = new AbortController();
    response.on('close', () => controller.abort(new DOMException('client went away', 'AbortError')));
    handle(request, response, controller.signal).catch((error: unknown) => {
      const known = ServiceError.isInstance(error) ? error : undefined;
      if (!known) logger.error('request failed', { method: request.method, path: pathOf(request), error: describeError(error) });
      send(response, known?.status ?? 500, { ok: false, error: { code: known?.code ?? 'INTERNAL', message: known?.message ?? 'Internal error' } });
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse, signal: AbortSignal): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const segments = url.pathname.split('/').filter(Boolean).map(decodeSegment);
    const method = request.method ?? 'GET';
    if (method === 'GET' && url.pathname === '/healthz') return send(response, 200, { ok: true });
    if (method === 'PUT' && segments.length === 3 && segments[0] === 'v1' && segments[1] === 'prompts') {
      requireAdmin(request);
      const targetPromptId = validId(segments[2]);
      const body = parseBody(PromptBodySchema, await readJson(request, maxBody));
      // A card's fields are rendered here into its full definition, so the base prompt (and every
      // compiled prompt built on it) is the whole character, never a fragment.
      const prompt = 'character' in body ? basePromptFromCard(body.character, body.user) : body;
      if (prompt.content.trim() === '') throw new ServiceError(400, 'INVALID_REQUEST', 'The card has no description, personality or scenario: nothing to register');
      const { created } = await service.registerPrompt(targetPromptId, prompt.content, prompt.characterName);
      return send(response, created ? 201 : 200, { ok: true, targetPromptId, created });
    }
    const user = authenticate(request);
    if (method === 'POST' && url.pathname === '/v1/chat') {
      const body = parseBody(ScheduleRequestSchema, await readJson(request, maxBody));
      return send(response, 202, await service.schedule(user, body));
    }
    if (method === 'GET' && segments.length === 5 && url.pathname.startsWith('/v1/director/tasks/by-request/')) {
      return send(response, 200, await service.task(user, validId(segments[4])));
    }
    if (method === 'GET' && url.pathname === '/v1/director/active-prompt') {
      const version = await service.activePrompt(user, query(url));
      if (!version) return send(response, 404, { ok: false, error: { code: 'NOT_FOUND', message: 'No compiled prompt yet' } });
      const { versionId, sourceVersionId, changeset, compiledPrompt, compiledPromptSha256 } = version;
      return send(response, 200, { versionId, sourceVersionId, changeset, compiledPrompt, compiledPromptSha256 });
    }
    if (method === 'GET' && url.pathname === '/v1/director/requirements') {
      return send(response, 200, { requirements: await service.requirements(user, query(url)) });
    }
    if (method === 'DELETE' && segments.length === 4 && url.pathname.startsWith('/v1/director/requirements/')) {
      const outcome = await service.revoke(user, query(url), validId(segments[3]), signal);
      const version = outcome.version;
      return send(response, 200, {
        ok: true,
        promptChanged: outcome.promptChanged,
        revoked: outcome.revoked,
        ...(version ? { versionId: version.versionId, sourceVersionId: version.sourceVersionId, compiledPromptSha256: version.compiledPromptSha256 } : {}),
      });
    }
    if (method === 'POST' && url.pathname === '/v1/director/conversations/fork') {
      const outcome = await service.fork(user, parseBody(ForkBodySchema, await readJson(request, maxBody)), signal);
      const version = outcome.version;
      return send(response, 200, {
        ok: true,
        requirements: outcome.requirements.map(({ id, text, requestId }) => ({ id, text, requestId })),
        ...(version ? { versionId: version.versionId, sourceVersionId: version.sourceVersionId, compiledPromptSha256: version.compiledPromptSha256 } : {}),
      });
    }
    throw new ServiceError(404, 'NOT_FOUND', `No route ${method} ${url.pathname}`);
  }

  function authenticate(request: IncomingMessage): string {
    const token = bearer(request);
    const user = token === undefined ? undefined : options.tokens.get(token);
    if (!user) throw new ServiceError(401, 'UNAUTHORIZED', 'Send "Authorization: Bearer <token>" with a configured token');
    return user;
  }

  function requireAdmin(request: IncomingMessage): void {
    const token = bearer(request);
    if (!options.adminToken || token === undefined || !sameSecret(token, options.adminToken)) {
      throw new ServiceError(403, 'FORBIDDEN', 'Registering prompts needs the admin token');
    }
  }

  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  return server;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ServiceError(400, 'INVALID_ID', 'The path is not valid percent-encoding');
  }
}

function validId(value: string | undefined): string {
  if (value === undefined || !DIO_ID_PATTERN.test(value)) throw new ServiceError(400, 'INVALID_ID', 'Ids are 1–200 of letters, digits and _ . : @ -');
  return value;
}

function query(url: URL): ConversationQuery {
  const parsed = QuerySchema.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success) throw new ServiceError(400, 'INVALID_ID', 'userId, conversationId and targetPromptId are required ids');
  return { userId: parsed.data.userId, rpConversationId: parsed.data.conversationId, targetPromptId: parsed.data.targetPromptId };
}

function bearer(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer ([\x21-\x7e]{1,512})$/.exec(header);
  return match?.[1];
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function readJson(request: IncomingMessage, maxBody: number): Promise<unknown> {
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) throw new ServiceError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send a JSON body (content-type: application/json)');
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > maxBody) throw new ServiceError(413, 'BODY_TOO_LARGE', `The body is larger than ${maxBody} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBody) throw new ServiceError(413, 'BODY_TOO_LARGE', `The body is larger than ${maxBody} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ServiceError(400, 'INVALID_REQUEST', 'The body is not valid JSON');
  }
}

function parseBody<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ServiceError(400, 'INVALID_REQUEST', `Invalid body: ${formatIssues(parsed.error, { root: 'body' })}`);
}

function pathOf(request: IncomingMessage): string {
  return (request.url ?? '/').split('?')[0] ?? '/';
}

function send(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  response.end(text);
}
