import { describe, expect, it } from 'vitest';
import { expectError, freshId } from './support/api-client.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

const fx = setupWebFixture();
const { api } = fx;

/** A workspace with a character whose manifest.json a hand edit then broke; returns its id and revision. */
async function brokenStory(): Promise<{ id: string; revision: number }> {
  const id = freshId('broken');
  await api('POST', '/api/stories', { id, name: id });
  await api('POST', `/api/stories/${id}/characters`, { baseRevision: 1, id: 'lia', name: 'Lia' });
  // A hand edit outside the API (e.g. in a text editor) that breaks the JSON.
  const after = await fx.demo.storage.trees.commit(id, { baseRevision: 2, writes: { 'manifest.json': '{"name": "x", ' } });
  return { id, revision: after.revision };
}

describe('a story whose manifest.json a hand edit broke', () => {
  it('PUT /files still saves other files, refuses item files, and repairs manifest.json', async () => {
    const { id, revision } = await brokenStory();
    expectError(await api('GET', `/api/stories/${id}`), 400, 'STORY_MANIFEST_INVALID');
    const saved = await api('PUT', `/api/stories/${id}/files`, { baseRevision: revision, files: { 'outline.md': '修好之前也能写' } });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ id, revision: revision + 1, problem: expect.stringContaining('manifest.json') });
    expect(saved.body.files['outline.md']).toBe('修好之前也能写');
    expectError(await api('PUT', `/api/stories/${id}/files`, { baseRevision: revision + 1, files: { 'characters/lia/persona.md': 'x' } }), 400, 'STORY_MANIFEST_INVALID');
    expectError(await api('PUT', `/api/stories/${id}/files`, { baseRevision: revision + 1, files: { 'manifest.json': '{"name": ""}' } }), 400, 'INVALID_REQUEST');
    const repaired = await api('PUT', `/api/stories/${id}/files`, {
      baseRevision: revision + 1,
      files: { 'manifest.json': JSON.stringify({ name: 'Fixed', characters: [{ id: 'lia', name: 'Lia' }] }) },
    });
    expect(repaired.status).toBe(200);
    expect(repaired.body.manifest).toMatchObject({ name: 'Fixed', characters: [{ id: 'lia', name: 'Lia', enabled: true }] });
    expect((await api('GET', `/api/stories/${id}`)).body.files['outline.md']).toBe('修好之前也能写');
  });

  it('DELETE works with the revision the list shows', async () => {
    const { id, revision } = await brokenStory();
    const row = (await api('GET', '/api/stories')).body.stories.find((s: { id: string }) => s.id === id);
    expect(row).toMatchObject({ revision, problem: expect.any(String) });
    expectError(await api('DELETE', `/api/stories/${id}?baseRevision=${revision - 1}`), 409, 'STORY_REVISION_CONFLICT');
    expect((await api('DELETE', `/api/stories/${id}?baseRevision=${revision}`)).body).toEqual({ deleted: true, id });
  });

  it('PATCH routes use StoryWorkspaces: validation and 409 on a stale revision', async () => {
    const id = freshId('patch');
    await api('POST', '/api/stories', { id, name: id });
    await api('POST', `/api/stories/${id}/sources`, { baseRevision: 1, id: 'guide', title: 'Guide', text: 'x' });
    const patched = await api('PATCH', `/api/stories/${id}/sources/guide`, { baseRevision: 2, enabled: false });
    expect(patched.body.manifest.sources).toEqual([{ id: 'guide', title: 'Guide', enabled: false }]);
    expectError(await api('PATCH', `/api/stories/${id}/sources/guide`, { baseRevision: 2, title: 'stale' }), 409, 'STORY_REVISION_CONFLICT');
    expectError(await api('PATCH', `/api/stories/${id}/manifest`, { baseRevision: 2, name: 'stale' }), 409, 'STORY_REVISION_CONFLICT');
  });
});
