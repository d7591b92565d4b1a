import { codeOf } from '@troupe/kernel/contracts';
import { MemoryTreeStore } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { type StoryError, StoryWorkspaces } from '../src/index.js';
import { seedWorkspace } from './helpers.js';


describe('the workspace editing API', () => {
  it('creates the DESIGN §4 layout with a valid manifest', async () => {
    const workspaces = new StoryWorkspaces(new MemoryTreeStore());
    const ws = await workspaces.create('tale', { name: 'Tale' });
    expect(Object.keys(ws.files).sort()).toEqual(['foreshadowing.md', 'history.md', 'manifest.json', 'outline.md', 'proposals.md']);
    expect(ws.revision).toBe(1);
    expect(ws.manifest).toMatchObject({ name: 'Tale', revision: 1, characters: [], sources: [], sections: [], pipeline: { maxParallel: 4 } });
    expect(await workspaces.list()).toEqual(['tale']);
    expect(await codeOf(workspaces.create('tale', { name: 'again' }))).toBe('STORY_WORKSPACE_EXISTS');
    expect(await codeOf(workspaces.create('../etc', { name: 'x' }))).toBe('STORY_INVALID_ID');
  });

  it('adds, renames and removes characters, sections and sources with their files', async () => {
    const trees = new MemoryTreeStore();
    const workspaces = await seedWorkspace(trees);
    let ws = await workspaces.read('tale');
    expect(ws.files['characters/lia/persona.md']).toBe('LIA-PERSONA brave');
    expect(ws.files['sources/lore.md']).toContain('SOURCE-TAVERN');
    expect(ws.manifest.sections.map((s) => [s.id, s.order])).toEqual([
      ['scene', 0],
      ['lia-view', 1],
    ]);
    ws = await workspaces.renameCharacter('tale', ws.revision, 'lia', 'Lia the Bold');
    ws = await workspaces.renameSource('tale', ws.revision, 'lore', 'World lore');
    ws = await workspaces.updateSection('tale', ws.revision, 'scene', { title: 'The scene', kind: 'history' });
    expect(ws.manifest.characters[0]).toEqual({ id: 'lia', name: 'Lia the Bold', enabled: true });
    expect(ws.manifest.sources[0]?.title).toBe('World lore');
    expect(ws.manifest.sections[0]).toMatchObject({ title: 'The scene', kind: 'history' });
    ws = await workspaces.removeSource('tale', ws.revision, 'lore');
    ws = await workspaces.removeSection('tale', ws.revision, 'scene');
    expect(ws.files['sources/lore.md']).toBeUndefined();
    expect(ws.files['sections/scene.md']).toBeUndefined();
    expect(ws.manifest.sources).toEqual([]);
    expect(await codeOf(workspaces.removeSection('tale', ws.revision, 'nope'))).toBe('STORY_ITEM_NOT_FOUND');
    expect(await codeOf(workspaces.addCharacter('tale', ws.revision, { id: 'lia', name: 'dup' }))).toBe('STORY_DUPLICATE_ID');
    expect(await codeOf(workspaces.addCharacter('tale', ws.revision, { id: 'Bad Id', name: 'x' }))).toBe('STORY_INVALID_ID');
  });

  it('removing a character makes sections focused on it fall back to all participants', async () => {
    const workspaces = await seedWorkspace(new MemoryTreeStore());
    const ws = await workspaces.read('tale');
    expect(ws.manifest.sections.find((s) => s.id === 'lia-view')?.focus).toBe('lia');
    const after = await workspaces.removeCharacter('tale', ws.revision, 'lia');
    expect(after.manifest.sections.find((s) => s.id === 'lia-view')?.focus).toBeNull();
    expect(after.files['characters/lia/persona.md']).toBeUndefined();
    expect(after.files['characters/lia/knowledge.md']).toBeUndefined();
    expect(after.manifest.characters.map((c) => c.id)).toEqual(['bram']);
  });

  it('rejects a stale base revision with a clear error and writes nothing', async () => {
    const trees = new MemoryTreeStore();
    const workspaces = await seedWorkspace(trees);
    const ws = await workspaces.read('tale');
    await workspaces.writeFiles('tale', ws.revision, { 'outline.md': 'their edit' });
    for (const stale of [
      workspaces.writeFiles('tale', ws.revision, { 'outline.md': 'my edit' }),
      workspaces.addCharacter('tale', ws.revision, { id: 'new', name: 'New' }),
      workspaces.updateManifest('tale', ws.revision, ws.manifest),
      workspaces.delete('tale', ws.revision),
    ]) {
      const error = await stale.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: 'STORY_REVISION_CONFLICT', message: expect.stringContaining('Someone else changed') });
    }
    const now = await workspaces.read('tale');
    expect(now.files['outline.md']).toBe('their edit');
    expect(now.revision).toBe(ws.revision + 1);
  });

  it('validates manifest writes and naming the bad field; deletes a workspace', async () => {
    const workspaces = await seedWorkspace(new MemoryTreeStore());
    const ws = await workspaces.read('tale');
    const bad = await workspaces.writeFiles('tale', ws.revision, { 'manifest.json': '{"name": "x", "pipeline": {"maxParallel": 9}}' }).catch((e: StoryError) => e);
    expect(bad).toMatchObject({ code: 'STORY_MANIFEST_INVALID', field: 'pipeline.maxParallel' });
    const badFocus = await workspaces.addSection('tale', ws.revision, { id: 'x', title: 'X', kind: 'character', focus: 'nobody' }).catch((e: StoryError) => e);
    expect(badFocus).toMatchObject({ code: 'STORY_MANIFEST_INVALID', field: 'sections[2].focus' });
    expect(await codeOf(workspaces.writeFiles('tale', ws.revision, { '../escape.md': 'x' }))).toBe('STORY_INVALID_PATH');
    expect(await codeOf(workspaces.writeFiles('tale', ws.revision, { 'manifest.json': null }))).toBe('STORY_INVALID_PATH');
    expect(await workspaces.delete('tale', ws.revision)).toBe(true);
    expect(await workspaces.delete('tale', ws.revision)).toBe(false);
    expect(await codeOf(workspaces.read('tale'))).toBe('STORY_WORKSPACE_NOT_FOUND');
  });

  it('keeps unknown top-level manifest fields a player added', async () => {
    const workspaces = await seedWorkspace(new MemoryTreeStore());
    const raw = await workspaces.readRaw('tale');
    const manifest = { ...JSON.parse(raw.files['manifest.json']!), playerNote: 'keep me' };
    let ws = await workspaces.writeFiles('tale', raw.revision, { 'manifest.json': JSON.stringify(manifest) });
    ws = await workspaces.renameCharacter('tale', ws.revision, 'bram', 'Bram B.');
    expect(JSON.parse(ws.files['manifest.json']!).playerNote).toBe('keep me');
  });
});
