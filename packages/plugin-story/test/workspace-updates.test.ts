import { MemoryTreeStore } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { StoryError, type StoryWorkspaces } from '../src/index.js';
import { seedWorkspace } from './helpers.js';

async function failure(promise: Promise<unknown>): Promise<{ code?: string; field?: string | undefined; message?: string }> {
  try {
    await promise;
  } catch (error) {
    if (StoryError.isInstance(error)) return { code: error.code, field: error.field, message: error.message };
    return { code: `not a StoryError: ${String(error)}` };
  }
  return {};
}

async function seeded(): Promise<{ workspaces: StoryWorkspaces; revision: number }> {
  const workspaces = await seedWorkspace(new MemoryTreeStore());
  return { workspaces, revision: (await workspaces.read('tale')).revision };
}

describe('updating characters, sections, sources and pipeline settings', () => {
  it('updateCharacter changes name and enabled flag, never the id, and validates', async () => {
    const { workspaces, revision } = await seeded();
    const patch = { name: 'Lia the Bold', enabled: false, id: 'hijack' } as { name: string; enabled: boolean };
    const ws = await workspaces.updateCharacter('tale', revision, 'lia', patch);
    expect(ws.manifest.characters[0]).toEqual({ id: 'lia', name: 'Lia the Bold', enabled: false });
    expect(ws.files['characters/lia/knowledge.md']).toContain('LIA-SECRET');
    expect(await failure(workspaces.updateCharacter('tale', ws.revision, 'lia', { name: '' }))).toMatchObject({ code: 'STORY_MANIFEST_INVALID', field: 'characters[0].name' });
    expect(await failure(workspaces.updateCharacter('tale', ws.revision, 'ghost', { name: 'x' }))).toMatchObject({ code: 'STORY_ITEM_NOT_FOUND' });
    expect((await workspaces.read('tale')).revision).toBe(ws.revision);
  });

  it('updateSource changes title and enabled flag and validates', async () => {
    const { workspaces, revision } = await seeded();
    const ws = await workspaces.updateSource('tale', revision, 'lore', { title: 'World lore', enabled: false });
    expect(ws.manifest.sources[0]).toEqual({ id: 'lore', title: 'World lore', enabled: false });
    expect(ws.files['sources/lore.md']).toContain('SOURCE-TAVERN');
    expect(await failure(workspaces.updateSource('tale', ws.revision, 'lore', { title: '' }))).toMatchObject({ code: 'STORY_MANIFEST_INVALID', field: 'sources[0].title' });
    expect(await failure(workspaces.updateSource('tale', ws.revision, 'none', { title: 'x' }))).toMatchObject({ code: 'STORY_ITEM_NOT_FOUND' });
  });

  it('updateSection never changes the id and rejects an unknown focus', async () => {
    const { workspaces, revision } = await seeded();
    const ws = await workspaces.updateSection('tale', revision, 'lia-view', { focus: null, order: 5, id: 'x' } as { focus: null; order: number });
    expect(ws.manifest.sections[1]).toMatchObject({ id: 'lia-view', focus: null, order: 5 });
    expect(await failure(workspaces.updateSection('tale', ws.revision, 'lia-view', { focus: 'nobody' }))).toMatchObject({ code: 'STORY_MANIFEST_INVALID', field: 'sections[1].focus' });
  });

  it('updatePipeline and updateSettings patch the settings; null removes provider/model', async () => {
    const { workspaces, revision } = await seeded();
    let ws = await workspaces.updatePipeline('tale', revision, { maxParallel: 2, provider: 'local', model: 'qwen', webSearch: false });
    expect(ws.manifest.pipeline).toEqual({ maxParallel: 2, provider: 'local', model: 'qwen', webSearch: false, deadlineMs: 240_000, stageTimeoutMs: 90_000 });
    ws = await workspaces.updateSettings('tale', ws.revision, { name: 'Renamed', pipeline: { model: null, provider: null } });
    expect(ws.manifest.name).toBe('Renamed');
    expect(ws.manifest.pipeline).toEqual({ maxParallel: 2, webSearch: false, deadlineMs: 240_000, stageTimeoutMs: 90_000 });
    expect(await failure(workspaces.updatePipeline('tale', ws.revision, { maxParallel: 9 }))).toMatchObject({ code: 'STORY_MANIFEST_INVALID', field: 'pipeline.maxParallel' });
    expect(await failure(workspaces.updateSettings('tale', ws.revision, { name: '' }))).toMatchObject({ code: 'STORY_MANIFEST_INVALID', field: 'name' });
    expect((await workspaces.read('tale')).revision).toBe(ws.revision);
  });

  it('every update with a stale base revision is a STORY_REVISION_CONFLICT that writes nothing', async () => {
    const { workspaces, revision } = await seeded();
    const theirs = await workspaces.writeFiles('tale', revision, { 'outline.md': 'their edit' });
    for (const stale of [
      workspaces.updateCharacter('tale', revision, 'lia', { name: 'mine' }),
      workspaces.updateSection('tale', revision, 'scene', { title: 'mine' }),
      workspaces.updateSource('tale', revision, 'lore', { title: 'mine' }),
      workspaces.updatePipeline('tale', revision, { maxParallel: 1 }),
      workspaces.updateSettings('tale', revision, { name: 'mine' }),
    ]) {
      expect(await failure(stale)).toMatchObject({ code: 'STORY_REVISION_CONFLICT', message: expect.stringContaining('Someone else changed') });
    }
    const now = await workspaces.read('tale');
    expect(now.revision).toBe(theirs.revision);
    expect(now.manifest).toEqual(theirs.manifest);
  });
});

describe('a workspace whose manifest.json a hand edit broke', () => {
  async function broken(): Promise<{ workspaces: StoryWorkspaces; revision: number }> {
    const trees = new MemoryTreeStore();
    const workspaces = await seedWorkspace(trees);
    const raw = await workspaces.readRaw('tale');
    // A hand edit on disk: bypasses the editing API's validation.
    const after = await trees.commit('tale', { baseRevision: raw.revision, writes: { 'manifest.json': '{"name": "Tale", "pipeline": {"maxParallel": 99}' } });
    return { workspaces, revision: after.revision };
  }

  it('can be deleted with the revision from readRaw', async () => {
    const { workspaces, revision } = await broken();
    expect(await failure(workspaces.read('tale'))).toMatchObject({ code: 'STORY_MANIFEST_INVALID' });
    expect((await workspaces.readRaw('tale')).revision).toBe(revision);
    expect(await failure(workspaces.delete('tale', revision - 1))).toMatchObject({ code: 'STORY_REVISION_CONFLICT' });
    expect(await workspaces.delete('tale', revision)).toBe(true);
    expect(await workspaces.list()).toEqual([]);
  });

  it('writeRawFiles edits other files; writeFiles refuses before writing; a valid manifest.json repairs it', async () => {
    const { workspaces, revision } = await broken();
    expect(await failure(workspaces.writeFiles('tale', revision, { 'outline.md': 'lost?' }))).toMatchObject({ code: 'STORY_MANIFEST_INVALID' });
    expect((await workspaces.readRaw('tale')).revision).toBe(revision);
    const edited = await workspaces.writeRawFiles('tale', revision, { 'outline.md': 'kept' });
    expect(edited.files['outline.md']).toBe('kept');
    expect(await failure(workspaces.writeRawFiles('tale', edited.revision, { 'manifest.json': '{"name": ""}' }))).toMatchObject({ code: 'STORY_MANIFEST_INVALID', field: 'name' });
    expect(await failure(workspaces.updateCharacter('tale', edited.revision, 'lia', { name: 'x' }))).toMatchObject({ code: 'STORY_MANIFEST_INVALID' });
    const repaired = await workspaces.writeFiles('tale', edited.revision, { 'manifest.json': '{"name": "Tale", "characters": [{"id": "lia", "name": "Lia"}]}' });
    expect(repaired.manifest.characters).toEqual([{ id: 'lia', name: 'Lia', enabled: true }]);
    expect(repaired.files['outline.md']).toBe('kept');
  });
});
