import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { composeDemo } from '../src/compose.js';
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
    // The requirement turn scheduled DIO with the player's raw words; the reply did not wait for it.
    const requirementTurn = report.results[REQUIREMENT_TURN];
    expect(requirementTurn?.events.some((event) => event.type === 'dio/scheduled')).toBe(true);
    expect(requirementTurn?.events.some((event) => event.type === 'dio/active-prompt-applied')).toBe(false);
    // Every turn ran the story pipeline and handed a draft to the actor.
    for (const result of report.results) {
      expect(result.events.some((event) => event.type === 'agent-rp/story-draft-prepared')).toBe(true);
      expect(result.prepared.history.some((message) => message.content.includes('<story_draft>'))).toBe(true);
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
    expect(text).toContain('✓ the roleplay slot now holds the DIO compiled prompt');
    expect(text).toContain(join(dir, 'sessions', report.sessionId));
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
