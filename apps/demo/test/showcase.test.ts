import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256Hex } from '@troupe/kernel/util';
import { afterEach, describe, expect, it } from 'vitest';
import { composeDemo } from '../src/compose.js';
import { demoPreset } from '../src/demo-preset.js';
import { LIA_CHARACTER_PROMPT } from '../src/example/lia-character.js';
import { roleplaySlotPosition } from '../src/showcase/compiled-prompt-proof.js';
import { HARBOR_STORY_ID } from '../src/example/harbor-story.js';
import { runShowcase } from '../src/showcase/run-showcase.js';
import { REQUIREMENT_TURN, SHOWCASE_LINES } from '../src/showcase/showcase-script.js';
import { capturedContext, tempDataDir } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

describe('the offline showcase', () => {
  it('plays three turns with the story pipeline and DIO, and the last actor prompt carries the compiled prompt', async () => {
    const { dir, cleanup } = await tempDataDir();
    cleanups.push(cleanup);
    const demo = await composeDemo({ dataDir: dir, env: {} });
    cleanups.push(() => demo.close());
    const context = capturedContext();
    const report = await runShowcase(demo, context.output);

    expect(report.results).toHaveLength(SHOWCASE_LINES.length);
    expect(report.dioStatus).toBe('succeeded');
    expect(report.compiledPromptInActorPrompt).toBe(true);
    // The proof itself: the last actor prompt's roleplay slot (found by its position in the preset)
    // hashes to the compiled prompt the DIO task reported and the lookup applied.
    const events = await demo.storage.sessions.read(report.sessionId);
    const terminal = events.find((event) => event.type === 'dio/task-terminal');
    const taskSha256 = (terminal?.data as { compiledPromptSha256?: string } | undefined)?.compiledPromptSha256;
    expect(taskSha256).toMatch(/^[0-9a-f]{64}$/);
    const last = report.results.at(-1);
    const applied = last?.events.find((event) => event.type === 'dio/active-prompt-applied');
    expect((applied?.data as { compiledPromptSha256?: string } | undefined)?.compiledPromptSha256).toBe(taskSha256);
    const slot = last?.prepared.history[roleplaySlotPosition(demoPreset)]?.content ?? '';
    expect(sha256Hex(slot)).toBe(taskSha256);
    expect(report.proof).toMatchObject({ slotSha256: taskSha256, taskSha256, appliedSha256: taskSha256 });
    // …and it is not the base prompt: the requirement changed it.
    expect(sha256Hex(LIA_CHARACTER_PROMPT)).not.toBe(taskSha256);
    expect(report.results[0]?.prepared.history[roleplaySlotPosition(demoPreset)]?.content).toBe(LIA_CHARACTER_PROMPT);
    // The requirement turn scheduled DIO with the player's raw words; the reply did not wait for it.
    const requirementTurn = report.results[REQUIREMENT_TURN];
    expect(requirementTurn?.events.some((event) => event.type === 'dio/scheduled')).toBe(true);
    expect(requirementTurn?.events.some((event) => event.type === 'dio/active-prompt-applied')).toBe(false);
    // Every turn ran the story pipeline and handed a draft to the actor.
    for (const result of report.results) {
      expect(result.events.some((event) => event.type === 'agent-rp/story-draft-prepared')).toBe(true);
      expect(result.prepared.history.some((message) => message.content.includes('<story_draft>'))).toBe(true);
    }
    // The offline model answers in character without echoing the player: no clause of a player's
    // line (stage direction or speech) comes back in that turn's visible reply.
    for (const [index, result] of report.results.entries()) {
      const clauses = (SHOWCASE_LINES[index] ?? '').split(/[（）()。！？!?，,]+/u).filter((clause) => clause.trim().length >= 4);
      for (const clause of clauses) expect(result.reply).not.toContain(clause);
    }
    // Continuity settled each turn into the player's workspace files exactly once.
    const history = await readFile(join(dir, 'story-workspaces', HARBOR_STORY_ID, 'history.md'), 'utf8');
    for (const result of report.results) expect(history.split(`troupe:settle story:${result.turnId}`)).toHaveLength(2);
    const outline = await readFile(join(dir, 'story-workspaces', HARBOR_STORY_ID, 'outline.md'), 'utf8');
    expect(outline).toContain('# 雾港 Fog Harbor — 大纲');
    expect(outline).not.toContain('troupe:settle');

    const text = context.text();
    expect(text).toContain(`data directory : ${dir}`);
    expect(text).toContain('director called schedule_dio');
    expect(text).toContain('DIO task succeeded');
    expect(text).toContain(`✓ the roleplay slot now holds the DIO compiled prompt: sha256(slot) = ${taskSha256?.slice(0, 12)}`);
    expect(text).toContain('Lia: ');
    expect(text).toContain(join(dir, 'sessions', report.sessionId));
  });

  it('finds the roleplay slot by its position in the preset', () => {
    expect(roleplaySlotPosition(demoPreset)).toBe(1);
    const shifted = { prompts: [{ identifier: 'x', name: 'Extra', role: 'system' as const, content: 'first' }, ...demoPreset.prompts] };
    expect(roleplaySlotPosition(shifted)).toBe(2);
    const emptyBefore = { prompts: [{ identifier: 'x', name: 'Empty', role: 'system' as const, content: '  ' }, ...demoPreset.prompts] };
    expect(roleplaySlotPosition(emptyBefore)).toBe(1);
  });

  it('keeps a player-edited example story on the next run', async () => {
    const { dir, cleanup } = await tempDataDir();
    cleanups.push(cleanup);
    const first = await composeDemo({ dataDir: dir, env: {} });
    const { ensureExampleStory } = await import('../src/example/create-example-story.js');
    const { workspace } = await ensureExampleStory(first.workspaces);
    await first.workspaces.writeFiles(HARBOR_STORY_ID, workspace.revision, { 'outline.md': '# 我自己的大纲\n' });
    await first.close();

    const second = await composeDemo({ dataDir: dir, env: {} });
    cleanups.push(() => second.close());
    const again = await ensureExampleStory(second.workspaces);
    expect(again.created).toBe(false);
    expect(again.workspace.files['outline.md']).toBe('# 我自己的大纲\n');
  });
});
