import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How the emulated server treats `tools`:
 * - `tools` — supports tool calling (OpenAI, vLLM with `--enable-auto-tool-choice`, Ollama models with a tool template);
 * - `reject` — answers 400 to any request with `tools` (vLLM without the tool flags: "auto" tool choice requires
 *   --enable-auto-tool-choice; Ollama: "model does not support tools");
 * - `ignore` — drops `tools` silently (servers and proxies that do not implement them): the model only reads the prompt;
 * - `hopeless` — rejects `tools` like `reject`, and its model never writes a JSON decision (a small model that ignores format instructions).
 */
export type ToolMode = 'tools' | 'reject' | 'ignore' | 'hopeless';

interface Body {
  readonly stream?: boolean;
  readonly tools?: readonly unknown[];
  readonly response_format?: unknown;
  readonly messages: readonly { role: string; content: string | null }[];
}

/** A loopback OpenAI-compatible server with a given tool behaviour, playing director, DIO compiler and actor. */
export interface FakeToolServer {
  readonly baseUrl: string;
  /** Every request body, in order. */
  readonly requests: Body[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
}

function answer(res: ServerResponse, body: Body, message: Record<string, unknown>): void {
  const base = { id: 'chatcmpl-fake', created: 1_700_000_000, model: 'fake' };
  if (body.stream) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: object, finish: string | null) => res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    chunk({ role: 'assistant', content: String(message.content ?? '') }, null);
    chunk({}, 'stop');
    res.end('data: [DONE]\n\n');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
}

// The emulated model: as director it wants `schedule_dio` when the player says "从现在起"; it
// calls it as a tool when it has tools, names it in text when the server dropped them, and writes
// a JSON decision when asked for one. As DIO compiler it returns the draft; as actor it answers briefly.
function reply(mode: ToolMode, body: Body): Record<string, unknown> | undefined {
  const system = body.messages[0]?.content ?? '';
  const lastUser = [...body.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
  if (system.includes('director of a roleplay conversation')) {
    const lasting = lastUser.includes('从现在起');
    const answered = body.messages.some((message) => message.role === 'tool' || (message.role === 'user' && message.content?.startsWith('Result of')));
    if (body.tools?.length && (mode === 'reject' || mode === 'hopeless')) return undefined;
    if (mode === 'hopeless') return { content: 'Hmm, the player seems to want something.' };
    if (body.tools?.length && mode === 'tools') {
      if (!lasting || answered) return { content: 'none' };
      return { content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'schedule_dio', arguments: '{}' } }] };
    }
    if (system.includes('Answer with exactly one JSON object')) return { content: JSON.stringify(lasting && !answered ? { tool: 'schedule_dio', arguments: {} } : { tool: null }) };
    return { content: lasting ? 'This needs schedule_dio.' : 'none' };
  }
  if (system.includes('maintain a roleplay character prompt')) return { content: lastUser };
  return { content: '「好。」' };
}

/**
 * Starts the emulated server on 127.0.0.1 (port 0).
 * @param mode - how it treats `tools`
 * @returns the running server
 */
export async function startFakeToolServer(mode: ToolMode): Promise<FakeToolServer> {
  const requests: Body[] = [];
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || !(req.url ?? '').startsWith('/v1/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const body = await readBody(req);
    requests.push(body);
    const message = reply(mode, body);
    if (message === undefined) {
      // vLLM's error shape for a server started without tool calling.
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'error', message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', type: 'BadRequestError', code: 400 }));
      return;
    }
    answer(res, body, message);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
