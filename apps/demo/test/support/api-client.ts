import { expect } from 'vitest';
import { parseSse, type SseMessage } from './web-fixture.js';

/** An API answer: status, parsed JSON body (when it is JSON), raw text and headers. */
export interface Answer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the tests read arbitrary JSON answers field by field
  readonly body: any;
  readonly text: string;
  readonly headers: Headers;
}

/** A JSON API client bound to one server: a string body is sent as is, anything else as JSON. */
export type ApiClient = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer>;

/**
 * A client for the web API of the server at `baseUrl()` (read lazily: fixtures start in `beforeAll`).
 * @param baseUrl - the server's URL
 * @returns the client
 */
export function apiClient(baseUrl: () => string): ApiClient {
  return async (method, path, body, headers = {}) => {
    const response = await fetch(`${baseUrl()}${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed, text, headers: response.headers };
  };
}

/**
 * Asserts an error answer: the status, the stable code and a message a person can read.
 * @param answer - the answer
 * @param status - expected HTTP status
 * @param code - expected code
 */
export function expectError(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body?.code }).toEqual({ status, code });
  expect(typeof answer.body.message).toBe('string');
  expect(answer.body.message.length).toBeGreaterThan(5);
}

/**
 * Plays one turn through `POST /api/sessions/:id/turns` and reads the whole event stream.
 * @param baseUrl - the server's URL
 * @param sessionId - the session
 * @param text - the player's line
 * @returns the stream's messages
 */
export async function playTurn(baseUrl: string, sessionId: string, text: string): Promise<SseMessage[]> {
  return streamPost(`${baseUrl}/api/sessions/${sessionId}/turns`, { text });
}

/**
 * POSTs to a streaming turn route (turn, regenerate, continue) and reads the whole event stream.
 * @param url - the route's full URL
 * @param body - the JSON body
 * @returns the stream's messages
 */
export async function streamPost(url: string, body: unknown = {}): Promise<SseMessage[]> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return parseSse(await response.text());
}

let counter = 0;
/**
 * A fresh id for a test's own story or session, so no test depends on another's leftovers.
 * @param prefix - readable start
 * @returns `prefix-N`
 */
export function freshId(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}
