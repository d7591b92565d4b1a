import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { playTurn } from './support/api-client.js';
import { setupWebFixture } from './support/setup-web-fixture.js';
import { parseSse } from './support/web-fixture.js';

// A session log damaged inside (not a torn last line, which is repaired): every route of that
// session says so with SESSION_CORRUPT, naming the file and the line, as a conflict with the
// stored state (409), never as the server's own failure (500 INTERNAL).
const fx = setupWebFixture();
const { api } = fx;
const SESSION = 'damaged-inside';
const DAMAGED_LINE = 3;
let turnId = '';

beforeAll(async () => {
  for (const text of ['Hello.', 'How is the harbour?', 'Good night.']) expect((await playTurn(fx.server.url, SESSION, text)).at(-1)?.event).toBe('result');
  turnId = (await api('GET', `/api/sessions/${SESSION}/messages`)).body.messages.at(-1).turnId;
  const log = join(fx.dataDir, 'sessions', SESSION, 'events.jsonl');
  const lines = (await readFile(log, 'utf8')).split('\n');
  expect(lines.length).toBeGreaterThan(DAMAGED_LINE + 2);
  // Cut mid-line, the lines after it intact: a bad sync or a hand edit.
  lines[DAMAGED_LINE - 1] = (lines[DAMAGED_LINE - 1] ?? '').slice(0, 30);
  await writeFile(log, lines.join('\n'));
}, 120_000);

/** The problem a route answered with: a plain JSON error, or the `error` event ending a turn stream. */
async function problemOf(method: string, path: string, body?: unknown): Promise<{ status: number; code: string; message: string }> {
  const response = await fetch(`${fx.server.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const last = parseSse(text).at(-1);
    expect(last?.event).toBe('error');
    const data = last?.data as { code: string; message: string };
    return { status: 409, code: data.code, message: data.message };
  }
  const json = JSON.parse(text) as { code: string; message: string };
  return { status: response.status, code: json.code, message: json.message };
}

describe('a session whose events.jsonl is damaged inside', () => {
  const routes: [string, string, unknown?][] = [
    ['GET', '/messages'],
    ['GET', '/events'],
    ['GET', '/token-counts'],
    ['GET', '/story'],
    ['GET', '/dio'],
    ['GET', '/lorebooks'],
    ['GET', '/lore'],
    ['GET', '/turns/TURN/prompt'],
    ['POST', '/turns', { text: 'Are you there?' }],
    ['POST', '/turns/TURN/regenerate', {}],
    ['POST', '/continue', {}],
    ['PUT', '/turns/TURN/step', { step: 0 }],
    ['PATCH', '/turns/TURN', { reply: 'Edited.' }],
    ['POST', '/turns/TURN/branch', {}],
    ['DELETE', '/turns/TURN'],
  ];

  it.each(routes)('%s %s answers 409 SESSION_CORRUPT naming the file and the line', async (method, route, body) => {
    // Twice: the line named stays the damaged one however often the log is read.
    for (let round = 0; round < 2; round++) {
      const problem = await problemOf(method, `/api/sessions/${SESSION}${route.replace('TURN', turnId)}`, body);
      expect(problem).toMatchObject({ status: 409, code: 'SESSION_CORRUPT' });
      expect(problem.message).toContain(`sessions/${SESSION}/events.jsonl line ${DAMAGED_LINE} `);
    }
  });

  it('is still listed with its problem and exports every intact line', async () => {
    const row = (await api('GET', '/api/sessions')).body.sessions.find((s: { id: string }) => s.id === SESSION);
    expect(row.problem).toContain(`events.jsonl line ${DAMAGED_LINE} `);
    const exported = await api('GET', `/api/sessions/${SESSION}/export`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('x-troupe-skipped-lines')).toBe(String(DAMAGED_LINE));
  });
});
