import type { ApiProblem } from '../../src/wire/api-problem.js';
import type { StageProgress, TurnResultView, TurnStreamError } from '../../src/wire/turn-stream.js';

/** An API answer that was not 2xx: its status, stable code and message. */
export class ApiFailure extends Error {
  readonly status: number;
  readonly code: string;
  /** The turn a failed turn stream played (its `error` event names it): a retry can replay it. */
  readonly turnId?: string;

  constructor(status: number, problem: ApiProblem & { readonly turnId?: string }) {
    super(problem.message);
    this.status = status;
    this.code = problem.code;
    if (typeof problem.turnId === 'string') this.turnId = problem.turnId;
  }
}

/** Calls the JSON API; non-2xx answers throw {@link ApiFailure}. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const data: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const problem = data as Partial<ApiProblem> | undefined;
    throw new ApiFailure(response.status, { code: problem?.code ?? 'HTTP_' + response.status, message: problem?.message ?? response.statusText });
  }
  return data as T;
}

/** Callbacks of {@link playTurn}. */
export interface TurnHandlers {
  onStage(progress: StageProgress): void;
  onProgress(type: string, data: unknown): void;
  onDelta(text: string): void;
  /** A reasoning model's thinking as it arrives (shown collapsed). */
  onReasoning?(text: string): void;
}

/**
 * Plays one turn: `POST /api/sessions/:id/turns`, read as a server-sent event stream (fetch, since
 * EventSource cannot POST).
 * @param retryOf - the id of a turn that failed before its commit, when this sends its line again
 *   (the server replays what that turn prepared)
 * @returns the final result
 * @throws {ApiFailure} on a 4xx answer or an `error` event (whose `turnId` names the turn); the abort reason's error when `signal` aborts
 */
export function playTurn(sessionId: string, text: string, handlers: TurnHandlers, signal?: AbortSignal, retryOf?: string): Promise<TurnResultView> {
  return streamTurn(`/api/sessions/${encodeURIComponent(sessionId)}/turns`, retryOf === undefined ? { text } : { text, turnId: retryOf }, handlers, signal);
}

/**
 * POSTs to one of the streaming turn routes (a turn, regenerate, continue) and reads its
 * server-sent events. Aborting `signal` closes the connection, which cancels the run on the
 * server: nothing is committed.
 * @param path - the route
 * @param body - its JSON body
 * @returns the final result
 * @throws {ApiFailure} on a 4xx answer or an `error` event, `CONNECTION_LOST` when the connection ends
 *   before the result; the fetch's AbortError when `signal` aborts
 */
export async function streamTurn(path: string, body: unknown, handlers: TurnHandlers, signal?: AbortSignal): Promise<TurnResultView> {
  try {
    return await readTurnStream(path, body, handlers, signal);
  } catch (error) {
    // The browser says only "network error" / "Failed to fetch" when the server stops or the
    // network drops mid-reply: say what it means for the player's line and reply.
    if (error instanceof TypeError && !signal?.aborted) throw new ApiFailure(0, CONNECTION_LOST);
    throw error;
  }
}

/** What a turn that lost its connection tells the player (the reply may or may not have been saved). */
const CONNECTION_LOST: ApiProblem = {
  code: 'CONNECTION_LOST',
  message:
    '与服务器的连接断开了，回复没有写完。你的话已放回输入框；服务器恢复后重新载入聊天，看看回复是否已保存。The connection to the server was lost before the reply was finished. Your line is back in the box; once the server is back, reload the chat to see whether the reply was saved.',
};

async function readTurnStream(path: string, body: unknown, handlers: TurnHandlers, signal?: AbortSignal): Promise<TurnResultView> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  if (!response.ok || !response.body) {
    const problem = (await response.json().catch(() => undefined)) as ApiProblem | undefined;
    throw new ApiFailure(response.status, problem ?? { code: 'HTTP_' + response.status, message: response.statusText });
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let result: TurnResultView | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const message = parseBlock(block);
      if (message) {
        if (message.event === 'stage') handlers.onStage(message.data as StageProgress);
        else if (message.event === 'progress') {
          const progress = message.data as { type: string; data: unknown };
          handlers.onProgress(progress.type, progress.data);
        } else if (message.event === 'delta') handlers.onDelta((message.data as { text: string }).text);
        else if (message.event === 'reasoning') handlers.onReasoning?.((message.data as { text: string }).text);
        else if (message.event === 'result') result = message.data as TurnResultView;
        else if (message.event === 'error') throw new ApiFailure(500, message.data as TurnStreamError);
      }
      end = buffer.indexOf('\n\n');
    }
  }
  if (!result) throw new ApiFailure(500, { code: 'TURN_INCOMPLETE', message: 'The turn stream ended without a result' });
  return result;
}

function parseBlock(block: string): { event: string; data: unknown } | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  return data.length === 0 ? undefined : { event, data: JSON.parse(data.join('\n')) };
}
