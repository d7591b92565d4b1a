import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { generateJson, openAICompatibleModel } from '../src/index.js';
import { chatRequest, closedPort, collect } from './loopback-server.js';

// A third-party OpenAI-compatible server: @dwmkerr/mock-llm from npm, run as its own process
// from its `bin` (Node 20, offline), configured by a YAML file in a temp dir.

const CONFIG = `
streaming:
  chunkSize: 7
  chunkIntervalMs: 1
rules:
  - path: "/v1/chat/completions"
    method: "POST"
    match: "@"
    response:
      status: 200
      content: |
        {
          "id": "chatcmpl-{{timestamp}}",
          "object": "chat.completion",
          "model": "{{jmes request body.model}}",
          "choices": [{
            "message": { "role": "assistant", "content": "Echo: {{jmes request body.messages[-1].content}}" },
            "finish_reason": "stop"
          }]
        }
  - path: "/v1/chat/completions"
    method: "POST"
    match: "contains(body.messages[-1].content, 'as JSON')"
    response:
      status: 200
      content: |
        {
          "id": "chatcmpl-json",
          "object": "chat.completion",
          "model": "{{jmes request body.model}}",
          "choices": [{
            "message": { "role": "assistant", "content": "{\\"name\\": \\"Lia\\", \\"mood\\": \\"calm\\"}" },
            "finish_reason": "stop"
          }]
        }
`;

let dir: string;
let child: ChildProcess | undefined;
let baseURL: string;

async function startMockLlm(): Promise<void> {
  const packageJson = createRequire(import.meta.url).resolve('@dwmkerr/mock-llm/package.json');
  const manifest = JSON.parse(await readFile(packageJson, 'utf8')) as { bin: Record<string, string> };
  const bin = join(dirname(packageJson), manifest.bin['mock-llm']!);
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await closedPort();
    const started = spawn(process.execPath, [bin, '--config', join(dir, 'mock-llm.yaml')], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const ready = await new Promise<boolean>((resolve) => {
      let output = '';
      started.stdout!.on('data', (data: Buffer) => {
        output += data.toString();
        if (output.includes('server running on')) resolve(true);
      });
      started.once('exit', () => resolve(false));
    });
    if (ready) {
      child = started;
      baseURL = `http://127.0.0.1:${port}/v1`;
      return;
    }
  }
  throw new Error('mock-llm did not start');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'troupe-mock-llm-'));
  await writeFile(join(dir, 'mock-llm.yaml'), CONFIG);
  await startMockLlm();
}, 30_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
});

describe('against @dwmkerr/mock-llm (third-party server)', () => {
  it('generate: the plain completion path', async () => {
    const model = openAICompatibleModel({ baseURL, model: 'gpt-4o-mini', maxRetries: 0 }, {});
    const response = await model.generate(chatRequest({ messages: [{ role: 'user', content: 'Hello harbour' }] }));
    expect(response.text).toBe('Echo: Hello harbour');
    expect(response.finishReason).toBe('stop');
  });

  it('stream: chunks, a finish reason, no usage chunk (the server ignores stream_options)', async () => {
    const model = openAICompatibleModel({ baseURL, model: 'gpt-4o-mini', maxRetries: 0 }, {});
    const parts = await collect(model.stream!(chatRequest({ messages: [{ role: 'user', content: 'The fog rolls in over the quay' }] })));
    const deltas = parts.filter((part) => part.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(1);
    const last = parts.at(-1);
    expect(last?.type === 'finish' && last.response.text).toBe('Echo: The fog rolls in over the quay');
    expect(last?.type === 'finish' && last.response.usage).toBeUndefined();
  });

  it('JSON output through generateJson', async () => {
    const model = openAICompatibleModel({ baseURL, model: 'gpt-4o-mini', maxRetries: 0 }, {});
    const request = chatRequest({ messages: [{ role: 'user', content: 'Describe Lia as JSON' }], meta: { stage: 'story/character', sessionId: 's', turnId: 't' } });
    const { value } = await generateJson(model, request, z.object({ name: z.string(), mood: z.string() }));
    expect(value).toEqual({ name: 'Lia', mood: 'calm' });
  });
});
