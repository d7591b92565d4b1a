import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DioClient, DioError, MAX_COMPILED_PROMPT_CHARS, MAX_RESPONSE_BYTES } from '../src/index.js';

const QUERY = { userId: 'user-1', rpConversationId: 'conv-1', targetPromptId: 'lia' };
const PLANNED = 8 * MAX_RESPONSE_BYTES; // what the server would send if nobody stopped it
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function listen(handler: (response: ServerResponse) => void): Promise<string> {
  server = createServer((_request, response) => handler(response));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('response size cap', () => {
  it(`stops reading a chunked body once it passes ${MAX_RESPONSE_BYTES} bytes and drops the connection`, async () => {
    let sent = 0;
    let finished = false;
    let closed: Promise<unknown> = Promise.resolve();
    const url = await listen((response) => {
      closed = once(response, 'close');
      response.writeHead(200, { 'content-type': 'application/json' }); // no content-length: chunked
      response.write('{"compiledPrompt":"');
      // Honour backpressure, so `sent` is what the client actually pulled (plus socket buffers).
      const pump = () => {
        while (sent < PLANNED && !response.destroyed) {
          sent += CHUNK.length;
          if (!response.write(CHUNK)) return void response.once('drain', pump);
        }
        if (!response.destroyed) {
          finished = true;
          response.end('"}');
        }
      };
      pump();
    });
    const error = await new DioClient(url, 60_000).activePrompt(QUERY).catch((caught: unknown) => caught);
    expect(DioError.isInstance(error) && error.code).toBe('DIO_INVALID_RESPONSE');
    expect((error as DioError).message).toContain(`larger than ${MAX_RESPONSE_BYTES} bytes`);
    await closed;
    // The client hung up early: the server never got to send the whole planned body.
    expect(finished).toBe(false);
    expect(sent).toBeLessThan(PLANNED);
  });

  it('refuses a body whose declared content-length is over the cap without waiting for it', async () => {
    const url = await listen((response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MAX_RESPONSE_BYTES + 1) });
      // Sends a little and then stalls: only a client that trusts the header can answer now.
      response.write('{"compiledPrompt":"');
    });
    const error = await new DioClient(url, 60_000).activePrompt(QUERY).catch((caught: unknown) => caught);
    expect(DioError.isInstance(error) && error.code).toBe('DIO_INVALID_RESPONSE');
  });

  it('still reads a body just under the cap', async () => {
    // The prompt itself is held to MAX_COMPILED_PROMPT_CHARS; the bulk of the body is its changeset.
    const text = 'x'.repeat(MAX_COMPILED_PROMPT_CHARS);
    const { createHash } = await import('node:crypto');
    const body = JSON.stringify({
      versionId: 'v1',
      sourceVersionId: 's1',
      changeset: { added: [{ id: 'r1', text: 'y'.repeat(MAX_RESPONSE_BYTES - MAX_COMPILED_PROMPT_CHARS - 400) }], removed: [] },
      compiledPrompt: text,
      compiledPromptSha256: createHash('sha256').update(text).digest('hex'),
    });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
    expect(Buffer.byteLength(body)).toBeGreaterThan(MAX_RESPONSE_BYTES - 1_000);
    const url = await listen((response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(body);
    });
    expect((await new DioClient(url, 60_000).activePrompt(QUERY))?.compiledPrompt).toHaveLength(text.length);
  });
});
