import { describe, expect, it } from 'vitest';
import { expectError, freshId } from './support/api-client.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

const fx = setupWebFixture();
const { api } = fx;

/** Creates a workspace of the test's own (revision 1) and returns its id. */
async function newStory(prefix: string): Promise<string> {
  const id = freshId(prefix);
  expect((await api('POST', '/api/stories', { id, name: id })).status).toBe(201);
  return id;
}

describe('story workspaces', () => {
  it('lists, creates, reads and refuses duplicates and bad ids', async () => {
    const id = freshId('lighthouse');
    const created = await api('POST', '/api/stories', { id, name: '灯塔 Lighthouse', outline: '# 大纲\n' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id, revision: 1, manifest: { name: '灯塔 Lighthouse' } });
    expect(created.body.files['outline.md']).toBe('# 大纲\n');
    expectError(await api('POST', '/api/stories', { id, name: 'again' }), 409, 'STORY_WORKSPACE_EXISTS');
    expectError(await api('POST', '/api/stories', { id: 'Bad Id!', name: 'x' }), 400, 'INVALID_REQUEST');
    expectError(await api('POST', '/api/stories', { id: freshId('ok'), name: '' }), 400, 'INVALID_REQUEST');
    const list = await api('GET', '/api/stories');
    expect(list.body.stories).toContainEqual({ id, name: '灯塔 Lighthouse', revision: 1, characters: 0, sections: 0, sources: 0 });
    expect((await api('GET', `/api/stories/${id}`)).body.manifest.pipeline).toEqual({ maxParallel: 4, webSearch: true, deadlineMs: 240_000, stageTimeoutMs: 90_000 });
    expectError(await api('GET', '/api/stories/missing'), 404, 'STORY_WORKSPACE_NOT_FOUND');
  });

  it('writes files with the base revision and answers 409 on a stale save without overwriting', async () => {
    const id = await newStory('files');
    const saved = await api('PUT', `/api/stories/${id}/files`, { baseRevision: 1, files: { 'outline.md': '第一幕：雾。\n', 'foreshadowing.md': '- 钥匙\n' } });
    expect(saved.status).toBe(200);
    expect(saved.body.revision).toBe(2);
    expect(saved.body.files['outline.md']).toBe('第一幕：雾。\n');
    // A second tab still on revision 1 must not overwrite the newer text.
    const stale = await api('PUT', `/api/stories/${id}/files`, { baseRevision: 1, files: { 'outline.md': 'old tab text' } });
    expectError(stale, 409, 'STORY_REVISION_CONFLICT');
    expect(stale.body.message).toMatch(/Someone else changed/);
    expect(stale.body.message).toMatch(/reload/);
    const after = await api('GET', `/api/stories/${id}`);
    expect(after.body.revision).toBe(2);
    expect(after.body.files['outline.md']).toBe('第一幕：雾。\n');
  });

  it('refuses paths outside the editable files and files of unknown items', async () => {
    const id = await newStory('paths');
    const put = (files: Record<string, string>, baseRevision = 1) => api('PUT', `/api/stories/${id}/files`, { baseRevision, files });
    expectError(await put({ 'manifest.json': '{}' }), 400, 'INVALID_REQUEST');
    expectError(await put({ '../escape.md': 'x' }), 400, 'INVALID_REQUEST');
    // The route's own message names the path and what is editable (not zod's "Invalid key in record").
    for (const path of ['../x.md', 'sources/A.md', 'notes.md']) {
      const refused = await put({ 'outline.md': 'ok', [path]: 'x' });
      expectError(refused, 400, 'INVALID_REQUEST');
      expect(refused.body.message).toBe(
        `files.${path}: not an editable file (manifest.json, outline.md, foreshadowing.md, proposals.md, history.md, characters/<id>/persona.md|knowledge.md, sections/<id>.md, sources/<id>.md)`,
      );
    }
    expectError(await put({}), 400, 'INVALID_REQUEST');
    expectError(await put({ 'characters/ghost/persona.md': 'x' }), 404, 'STORY_ITEM_NOT_FOUND');
    expectError(await put({ 'outline.md': 'x' }, 0), 400, 'INVALID_REQUEST');
    expect((await api('GET', `/api/stories/${id}`)).body.revision).toBe(1);
  });

  it('changes the name and pipeline settings in the manifest', async () => {
    const id = await newStory('settings');
    const patched = await api('PATCH', `/api/stories/${id}/manifest`, { baseRevision: 1, name: '设置', pipeline: { maxParallel: 2, model: 'qwen', webSearch: false } });
    expect(patched.status).toBe(200);
    expect(patched.body.manifest).toMatchObject({ name: '设置', pipeline: { maxParallel: 2, model: 'qwen', webSearch: false } });
    const cleared = await api('PATCH', `/api/stories/${id}/manifest`, { baseRevision: 2, pipeline: { model: null } });
    expect(cleared.body.manifest.pipeline).toEqual({ maxParallel: 2, webSearch: false, deadlineMs: 240_000, stageTimeoutMs: 90_000 });
    expectError(await api('PATCH', `/api/stories/${id}/manifest`, { baseRevision: 3, pipeline: { maxParallel: 9 } }), 400, 'INVALID_REQUEST');
    expectError(await api('PATCH', `/api/stories/${id}/manifest`, { baseRevision: 1, name: 'stale' }), 409, 'STORY_REVISION_CONFLICT');
    expect((await api('GET', `/api/stories/${id}`)).body.manifest.name).toBe('设置');
  });

  it('deletes a workspace only at its current revision', async () => {
    const id = await newStory('doomed');
    await api('PUT', `/api/stories/${id}/files`, { baseRevision: 1, files: { 'outline.md': 'x' } });
    expectError(await api('DELETE', `/api/stories/${id}?baseRevision=1`), 409, 'STORY_REVISION_CONFLICT');
    expectError(await api('DELETE', `/api/stories/${id}?baseRevision=abc`), 400, 'INVALID_REQUEST');
    const deleted = await api('DELETE', `/api/stories/${id}?baseRevision=2`);
    expect(deleted.body).toEqual({ deleted: true, id });
    expectError(await api('DELETE', `/api/stories/${id}?baseRevision=2`), 404, 'STORY_WORKSPACE_NOT_FOUND');
  });
});

describe('characters, sections and sources', () => {
  it('adds, renames, disables and removes characters', async () => {
    const id = await newStory('cast');
    const base = `/api/stories/${id}/characters`;
    const added = await api('POST', base, { baseRevision: 1, id: 'lia', name: 'Lia', persona: '灯塔守护者', knowledge: '灯油只够三夜' });
    expect(added.status).toBe(201);
    expect(added.body.manifest.characters).toEqual([{ id: 'lia', name: 'Lia', enabled: true }]);
    expect(added.body.files['characters/lia/knowledge.md']).toBe('灯油只够三夜');
    expectError(await api('POST', base, { baseRevision: 2, id: 'lia', name: 'Lia 2' }), 409, 'STORY_DUPLICATE_ID');
    expectError(await api('POST', base, { baseRevision: 2, id: 'No Way', name: 'x' }), 400, 'INVALID_REQUEST');
    const renamed = await api('PATCH', `${base}/lia`, { baseRevision: 2, name: '莉娅 Lia', enabled: false });
    expect(renamed.body.manifest.characters).toEqual([{ id: 'lia', name: '莉娅 Lia', enabled: false }]);
    const persona = await api('PUT', `/api/stories/${id}/files`, { baseRevision: 3, files: { 'characters/lia/persona.md': '新的人设' } });
    expect(persona.body.files['characters/lia/persona.md']).toBe('新的人设');
    expectError(await api('PATCH', `${base}/ghost`, { baseRevision: 4, name: 'x' }), 404, 'STORY_ITEM_NOT_FOUND');
    expectError(await api('PATCH', `${base}/lia`, { baseRevision: 2, name: 'stale' }), 409, 'STORY_REVISION_CONFLICT');
    expectError(await api('DELETE', `${base}/lia`), 400, 'INVALID_REQUEST');
    const removed = await api('DELETE', `${base}/lia?baseRevision=4`);
    expect(removed.body.manifest.characters).toEqual([]);
    expect(removed.body.files['characters/lia/persona.md']).toBeUndefined();
  });

  it('adds, updates and removes sections; removing a character un-focuses its sections', async () => {
    const id = await newStory('parts');
    await api('POST', `/api/stories/${id}/characters`, { baseRevision: 1, id: 'marco', name: 'Marco' });
    const base = `/api/stories/${id}/sections`;
    const added = await api('POST', base, { baseRevision: 2, id: 'voices', title: '人物反应', kind: 'character', focus: 'marco', reference: '写反应' });
    expect(added.status).toBe(201);
    expect(added.body.manifest.sections).toEqual([{ id: 'voices', title: '人物反应', kind: 'character', order: 0, enabled: true, focus: 'marco' }]);
    expect(added.body.files['sections/voices.md']).toBe('写反应');
    expectError(await api('POST', base, { baseRevision: 3, id: 'x', title: 'X', kind: 'poem' }), 400, 'INVALID_REQUEST');
    const updated = await api('PATCH', `${base}/voices`, { baseRevision: 3, title: 'Voices', order: 2 });
    expect(updated.body.manifest.sections[0]).toMatchObject({ title: 'Voices', order: 2 });
    const unfocused = await api('DELETE', `/api/stories/${id}/characters/marco?baseRevision=4`);
    expect(unfocused.body.manifest.sections[0].focus).toBeNull();
    expectError(await api('DELETE', `${base}/voices?baseRevision=4`), 409, 'STORY_REVISION_CONFLICT');
    expectError(await api('DELETE', `${base}/none?baseRevision=5`), 404, 'STORY_ITEM_NOT_FOUND');
    const removed = await api('DELETE', `${base}/voices?baseRevision=5`);
    expect(removed.body.manifest.sections).toEqual([]);
  });

  it('adds, retitles, disables and removes sources', async () => {
    const id = await newStory('lore');
    const base = `/api/stories/${id}/sources`;
    const added = await api('POST', base, { baseRevision: 1, id: 'guide', title: '导览', text: '# 雾港导览\n钟楼在北边。' });
    expect(added.status).toBe(201);
    expect(added.body.files['sources/guide.md']).toContain('钟楼');
    const patched = await api('PATCH', `${base}/guide`, { baseRevision: 2, title: 'Harbor guide', enabled: false });
    expect(patched.body.manifest.sources).toEqual([{ id: 'guide', title: 'Harbor guide', enabled: false }]);
    expectError(await api('POST', base, { baseRevision: 3, id: 'guide', title: 'again', text: '' }), 409, 'STORY_DUPLICATE_ID');
    expectError(await api('PATCH', `${base}/none`, { baseRevision: 3, title: 'x' }), 404, 'STORY_ITEM_NOT_FOUND');
    const removed = await api('DELETE', `${base}/guide?baseRevision=3`);
    expect(removed.body.manifest.sources).toEqual([]);
    expect(removed.body.files['sources/guide.md']).toBeUndefined();
  });
});
