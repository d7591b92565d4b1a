/** A server's own account of why it refused a request, whatever shape its error body had. */
export interface ServerError {
  /** The server's message, one line, at most {@link MAX_SERVER_MESSAGE} characters. */
  readonly message: string;
  readonly type?: string;
  readonly code?: string;
  readonly param?: string;
}

/** Longest server message kept (a proxy's HTML error page must not flood a chat). */
export const MAX_SERVER_MESSAGE = 600;

/**
 * Reads the message out of an error body. The servers Troupe targets answer in different shapes,
 * and the `openai` client only understands the first (anything else becomes "status code (no body)"):
 * - OpenAI, llama.cpp server, vLLM ≥ 0.9, LM Studio: `{"error": {"message", "type", "code", "param"}}`
 * - vLLM before 0.9 and Mistral: `{"object": "error", "message", "type", "code"}`, where Mistral's
 *   422 puts a FastAPI `{"detail": [...]}` inside `message`
 * - Ollama and LM Studio: `{"error": "text"}`
 * - FastAPI-based proxies: `{"detail": "text" | [{"loc", "msg"}]}`
 * - plain text or HTML from a gateway.
 * @param body - the raw response body
 * @returns the message, or undefined when the body is empty
 */
export function readServerError(body: string): ServerError | undefined {
  const trimmed = body.trim();
  if (trimmed === '') return undefined;
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    return { message: clip(stripHtml(trimmed)) };
  }
  return fromJson(json) ?? { message: clip(trimmed) };
}

function fromJson(value: unknown): ServerError | undefined {
  if (typeof value === 'string') return { message: clip(value) };
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const nested = record.error;
  if (typeof nested === 'string' && nested.trim() !== '') return { message: clip(nested) };
  if (typeof nested === 'object' && nested !== null) {
    const inner = fromJson(nested);
    if (inner) return inner;
  }
  const message = describeMessage(record.message) ?? describeMessage(record.detail) ?? describeMessage(record.error_description) ?? describeMessage(record.msg);
  if (message === undefined) return undefined;
  return {
    message: clip(message),
    ...optionalString('type', record.type),
    ...optionalString('code', record.code),
    ...optionalString('param', record.param),
  };
}

/** A message that may be text, a FastAPI `detail` list, or an object holding either. */
function describeMessage(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (Array.isArray(value)) {
    const parts = value.map((item) => {
      if (typeof item !== 'object' || item === null) return String(item);
      const entry = item as { loc?: unknown; msg?: unknown; message?: unknown };
      const where = Array.isArray(entry.loc) ? `${entry.loc.map(String).join('.')}: ` : '';
      return `${where}${String(entry.msg ?? entry.message ?? JSON.stringify(item))}`;
    });
    return parts.length > 0 ? parts.join('; ') : undefined;
  }
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return describeMessage(record.detail) ?? describeMessage(record.message) ?? JSON.stringify(value);
  }
  return undefined;
}

function optionalString(key: string, value: unknown): Record<string, string> {
  return typeof value === 'string' || typeof value === 'number' ? { [key]: String(value) } : {};
}

function stripHtml(text: string): string {
  if (!/^<(?:!doctype|html|head|body)/i.test(text)) return text;
  const title = /<title>([\s\S]*?)<\/title>/i.exec(text)?.[1];
  return (title ?? text.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim();
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_SERVER_MESSAGE ? `${line.slice(0, MAX_SERVER_MESSAGE - 1)}…` : line;
}

/**
 * Wraps `fetch` so every non-2xx answer reaches the `openai` client in OpenAI's error shape
 * (`{"error": {message, type, code, param}}`) carrying the server's own message. The client then
 * builds its typed errors (status, headers, retry hints) as usual, with a message that says what
 * the server said.
 * @param inner - the fetch to wrap (default: the global one)
 * @returns a fetch with the same signature
 */
export function normalizingFetch(inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.ok && /^text\/html\b/i.test(response.headers.get('content-type') ?? '')) return notAnApi(response);
    if (response.ok) return response;
    const body = await response.text().catch(() => '');
    const error = readServerError(body) ?? { message: `HTTP ${response.status} ${response.statusText}`.trim() };
    const headers = new Headers(response.headers);
    headers.set('content-type', 'application/json');
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(JSON.stringify({ error }), { status: response.status, statusText: response.statusText, headers });
  };
}

/** Header that marks an answer {@link normalizingFetch} turned into an error: a web page, not the API. */
export const NOT_AN_API_HEADER = 'x-troupe-not-an-api';

// A 2xx web page (a login page, a chat UI, a proxy's landing page) where the API should answer:
// the base URL points at a site, not at the API. Made an error the client does not retry (the
// same URL gives the same page), whose message says what to fix.
async function notAnApi(response: Response): Promise<Response> {
  const page = stripHtml((await response.text().catch(() => '')).trim());
  const named = page === '' ? 'a web page' : `a web page ("${clip(page).slice(0, 120)}")`;
  const message = `the server answered with ${named} where the API was expected: check that the base URL is the API's, e.g. http://127.0.0.1:11434/v1 or https://api.openai.com/v1`;
  const headers = new Headers({ 'content-type': 'application/json', 'x-should-retry': 'false', [NOT_AN_API_HEADER]: '1' });
  return new Response(JSON.stringify({ error: { message } }), { status: 502, statusText: 'Not an API response', headers });
}

