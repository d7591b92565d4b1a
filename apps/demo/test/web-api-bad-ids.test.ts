import { beforeAll, describe, expect, it } from 'vitest';
import { setupWebFixture } from './support/setup-web-fixture.js';

const fx = setupWebFixture();
const { api } = fx;
const STORY = 'real-story';
const SESSION = 'real-session';

beforeAll(async () => {
  // Real neighbours, so a route that ignored the bad id would find something and not answer 400.
  await api('POST', '/api/stories', { id: STORY, name: 'Real' });
  await api('POST', `/api/stories/${STORY}/characters`, { baseRevision: 1, id: 'lia', name: 'Lia' });
  await api('POST', `/api/stories/${STORY}/sections`, { baseRevision: 2, id: 'scene', title: 'Scene', kind: 'prose' });
  await api('POST', `/api/stories/${STORY}/sources`, { baseRevision: 3, id: 'guide', title: 'Guide', text: 'x' });
  await api('PUT', `/api/sessions/${SESSION}/story`, { storyId: STORY });
});

// A path traversal, a space and a Windows device name (valid characters, but no folder can have it).
const BAD_IDS = ['../x', 'A B', 'con'] as const;

interface Route {
  readonly method: string;
  readonly path: (bad: string) => string;
  readonly body?: unknown;
}

// Valid bodies: the id alone must be what is refused.
const STORY_ROUTES: readonly Route[] = [
  { method: 'GET', path: (id) => `/api/stories/${id}` },
  { method: 'DELETE', path: (id) => `/api/stories/${id}?baseRevision=1` },
  { method: 'PUT', path: (id) => `/api/stories/${id}/files`, body: { baseRevision: 1, files: { 'outline.md': 'x' } } },
  { method: 'PATCH', path: (id) => `/api/stories/${id}/manifest`, body: { baseRevision: 1, name: 'x' } },
  { method: 'POST', path: (id) => `/api/stories/${id}/characters`, body: { baseRevision: 1, id: 'marco', name: 'Marco' } },
  { method: 'POST', path: (id) => `/api/stories/${id}/sections`, body: { baseRevision: 1, id: 'voices', title: 'V', kind: 'prose' } },
  { method: 'POST', path: (id) => `/api/stories/${id}/sources`, body: { baseRevision: 1, id: 'notes', title: 'N', text: 'x' } },
  { method: 'PATCH', path: (id) => `/api/stories/${id}/characters/lia`, body: { baseRevision: 1, name: 'x' } },
  { method: 'DELETE', path: (id) => `/api/stories/${id}/characters/lia?baseRevision=1` },
  { method: 'PATCH', path: (id) => `/api/stories/${id}/sections/scene`, body: { baseRevision: 1, title: 'x' } },
  { method: 'DELETE', path: (id) => `/api/stories/${id}/sections/scene?baseRevision=1` },
  { method: 'PATCH', path: (id) => `/api/stories/${id}/sources/guide`, body: { baseRevision: 1, title: 'x' } },
  { method: 'DELETE', path: (id) => `/api/stories/${id}/sources/guide?baseRevision=1` },
  // The item id is the bad one, in a story that exists.
  { method: 'PATCH', path: (id) => `/api/stories/${STORY}/characters/${id}`, body: { baseRevision: 4, name: 'x' } },
  { method: 'DELETE', path: (id) => `/api/stories/${STORY}/characters/${id}?baseRevision=4` },
  { method: 'PATCH', path: (id) => `/api/stories/${STORY}/sections/${id}`, body: { baseRevision: 4, title: 'x' } },
  { method: 'DELETE', path: (id) => `/api/stories/${STORY}/sections/${id}?baseRevision=4` },
  { method: 'PATCH', path: (id) => `/api/stories/${STORY}/sources/${id}`, body: { baseRevision: 4, title: 'x' } },
  { method: 'DELETE', path: (id) => `/api/stories/${STORY}/sources/${id}?baseRevision=4` },
];

const SESSION_ROUTES: readonly Route[] = [
  { method: 'GET', path: (id) => `/api/sessions/${id}/messages` },
  { method: 'GET', path: (id) => `/api/sessions/${id}/events` },
  { method: 'GET', path: (id) => `/api/sessions/${id}/export` },
  { method: 'GET', path: (id) => `/api/sessions/${id}/story` },
  { method: 'PUT', path: (id) => `/api/sessions/${id}/story`, body: { storyId: STORY } },
  { method: 'DELETE', path: (id) => `/api/sessions/${id}/story` },
  { method: 'POST', path: (id) => `/api/sessions/${id}/turns`, body: { text: 'hi' } },
  { method: 'GET', path: (id) => `/api/sessions/${id}/dio` },
  { method: 'DELETE', path: (id) => `/api/sessions/${id}/dio/requirements/r1` },
];

const CASES = [...STORY_ROUTES, ...SESSION_ROUTES].flatMap((route) =>
  BAD_IDS.map((bad) => ({ name: `${route.method} ${route.path(bad)}`, route, bad })),
);

describe('bad ids', () => {
  it.each(CASES)('$name answers 400 INVALID_ID with {code, message}', async ({ route, bad }) => {
    // Encoded, so `../x` reaches the router as one segment instead of being resolved away.
    const answer = await api(route.method, route.path(encodeURIComponent(bad)), route.body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 'INVALID_ID', message: expect.stringMatching(/Invalid (story|session|item) id/) });
    // The rule is said once, not once per check that refused the id.
    expect(answer.body.message.match(/Invalid (story|session|item) id/g)).toHaveLength(1);
  });

  it('left the real workspace and session untouched', async () => {
    const story = await api('GET', `/api/stories/${STORY}`);
    expect(story.body.revision).toBe(4);
    expect((await api('GET', `/api/sessions/${SESSION}/story`)).body.storyId).toBe(STORY);
    expect((await api('GET', '/api/sessions')).body.sessions.map((s: { id: string }) => s.id)).toEqual([SESSION]);
  });
});
