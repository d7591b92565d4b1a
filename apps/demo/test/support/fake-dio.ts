import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake answers everything but submissions and task polls. */
export type FakeDioMode = 'ok' | 'http500' | 'badjson' | 'wronghash' | 'reset' | 'hang';

/** A contract-faithful fake DIO service whose view endpoints misbehave on demand. */
export interface FakeDio {
  readonly url: string;
  /** How `active-prompt` and `requirements` answer (submissions and task polls always work). */
  mode: FakeDioMode;
  close(): Promise<void>;
}

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Starts the fake on a loopback port: `POST /v1/chat` accepts (tasks stay `processing`), task polls
 * answer, and the view's endpoints (`active-prompt`, `requirements`) answer as `mode` says.
 * @returns the running fake
 */
export async function startFakeDio(): Promise<FakeDio> {
  const tasks = new Set<string>();
  const compiled = '你是莉娅（FAKE）。';
  const state: { mode: FakeDioMode } = { mode: 'ok' };
  const server: Server = createServer(async (request, response) => {
    const text = await body(request);
    const url = new URL(request.url ?? '/', 'http://x');
    const send = (status: number, json: unknown, raw?: string) => response.writeHead(status, { 'content-type': 'application/json' }).end(raw ?? JSON.stringify(json));
    if (request.method === 'POST' && url.pathname === '/v1/chat') {
      const b = JSON.parse(text);
      tasks.add(b.requestId);
      return send(202, { ok: true, accepted: true, conversationId: b.conversationId, targetPromptId: b.targetPromptId, taskMessageId: b.messageId, requestId: b.requestId });
    }
    if (url.pathname.startsWith('/v1/director/tasks/by-request/')) {
      const requestId = decodeURIComponent(url.pathname.split('/').pop() ?? '');
      return tasks.has(requestId) ? send(200, { requestId, status: 'processing', promptChanged: false }) : send(404, { error: { code: 'TASK_NOT_FOUND', message: 'no' } });
    }
    switch (state.mode) {
      case 'http500':
        return send(500, { error: { code: 'INTERNAL', message: 'boom' } });
      case 'badjson':
        return send(200, null, '{"ok":tru');
      case 'reset':
        return request.socket.destroy();
      case 'hang':
        return; // never answers
      default:
        break;
    }
    if (url.pathname === '/v1/director/active-prompt') {
      return send(200, { versionId: 'v1', sourceVersionId: 's1', changeset: { added: [], removed: [] }, compiledPrompt: compiled, compiledPromptSha256: state.mode === 'wronghash' ? sha('other') : sha(compiled) });
    }
    if (url.pathname === '/v1/director/requirements') return send(200, { requirements: [] });
    return send(404, { error: { code: 'NOT_FOUND', message: url.pathname } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get mode() {
      return state.mode;
    },
    set mode(mode: FakeDioMode) {
      state.mode = mode;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
