import { request as httpRequest } from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './support/api-client.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

let staticDir: string;

// Registered before the fixture, so the UI folder exists when it starts and is removed after it stops.
beforeAll(async () => {
  staticDir = await mkdtemp(join(tmpdir(), 'troupe-web-static-'));
  await mkdir(join(staticDir, 'assets'));
  await writeFile(join(staticDir, 'index.html'), '<!doctype html><title>故事工程</title>');
  await writeFile(join(staticDir, 'assets', 'app-1234.js'), 'console.log(1)');
});
afterAll(async () => {
  await rm(staticDir, { recursive: true, force: true });
});

const fx = setupWebFixture({ staticDir: () => staticDir });
const { api } = fx;

function rawGet(path: string, host?: string): Promise<{ status: number; body: string }> {
  const port = new URL(fx.server.url).port;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, ...(host ? { headers: { host: `${host}:${port}` } } : {}) }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('health, unknown routes and hosts', () => {
  it('answers health with the model id and the character name', async () => {
    const answer = await api('GET', '/api/health');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ ok: true, modelId: 'offline', characterName: 'Lia' });
  });

  it('answers an unknown API route with 404 {code, message}', async () => {
    expectError(await api('GET', '/api/nope'), 404, 'NOT_FOUND');
  });

  it('refuses a request addressed to a non-loopback host name (DNS rebinding)', async () => {
    const answer = await rawGet('/api/health', 'evil.example');
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).code).toBe('FORBIDDEN_HOST');
  });

  it('rejects bodies that are not JSON, not valid JSON or too large', async () => {
    expectError(await api('POST', '/api/stories', 'id=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await api('POST', '/api/stories', '{"id":'), 400, 'INVALID_JSON');
    const big = { id: 'big', name: 'Big', outline: 'x'.repeat(2 * 1024 * 1024 + 10) };
    expectError(await api('POST', '/api/stories', big), 413, 'BODY_TOO_LARGE');
    expectError(await api('GET', '/api/stories/big'), 404, 'STORY_WORKSPACE_NOT_FOUND');
  });
});

describe('static files', () => {
  it('serves index.html for / and for app routes, and assets with a long cache', async () => {
    const root = await fetch(`${fx.server.url}/`);
    expect(root.headers.get('content-type')).toMatch(/text\/html/);
    expect(await root.text()).toContain('故事工程');
    const route = await fetch(`${fx.server.url}/stories/fog-harbor`);
    expect(await route.text()).toContain('故事工程');
    const asset = await fetch(`${fx.server.url}/assets/app-1234.js`);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toContain('immutable');
  });

  it('does not serve files outside the build directory', async () => {
    expect((await rawGet('/..%2f..%2fpackage.json')).status).toBe(404);
  });
});
