import { readFileSync } from 'node:fs';
import { createTestHarness, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { wordLimitPlugin } from '../examples/word-limit-plugin.js';

describe('the example plugin from docs/architecture.md', () => {
  it('trims long replies and records an event', async () => {
    const model = new ScriptedChatModel({ byStage: { actor: ['one two three four five six'] } });
    const { harness } = await createTestHarness({ model, plugins: [wordLimitPlugin({ maxWords: 4 })] });
    const result = await harness.runTurn({ sessionId: 's', text: 'talk to me' });
    expect(result.reply).toBe('one two three four…');
    expect(result.events.find((event) => event.type === 'example/reply-trimmed')?.data).toEqual({ from: 6, to: 4 });
  });

  it('rejects an invalid config at boot', async () => {
    await expect(createTestHarness({ plugins: [wordLimitPlugin({ maxWords: 0 })] })).rejects.toMatchObject({ code: 'KERNEL_PLUGIN_CONFIG_INVALID' });
  });

  it('is quoted verbatim in docs/architecture.md', () => {
    const source = readFileSync(new URL('../examples/word-limit-plugin.ts', import.meta.url), 'utf8');
    const doc = readFileSync(new URL('../../../docs/architecture.md', import.meta.url), 'utf8');
    expect(doc).toContain(source.trim());
  });
});
