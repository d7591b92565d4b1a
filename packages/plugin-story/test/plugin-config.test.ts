import { KernelError } from '@troupe/kernel';
import { createTestHarness } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { STORY_PLUGIN_NAME, storyPlugin, type StoryPluginOptions } from '../src/index.js';

async function bootError(options: unknown): Promise<KernelError> {
  try {
    await createTestHarness({ plugins: [storyPlugin(options as StoryPluginOptions)] });
  } catch (error) {
    if (KernelError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('the harness booted');
}

describe('storyPlugin config is validated at boot', () => {
  it('refuses recentMessages: -3 with a code that names the plugin and the field', async () => {
    const error = await bootError({ recentMessages: -3 });
    expect(error.code).toBe('KERNEL_PLUGIN_CONFIG_INVALID');
    expect(error.plugin).toBe(STORY_PLUGIN_NAME);
    expect(error.message).toMatch(/recentMessages: /);
  });

  it('refuses malformed retrieval caps, unknown options and a web search without search()', async () => {
    expect((await bootError({ retrieval: { maxSnippets: 'six' } })).message).toMatch(/retrieval\.maxSnippets: /);
    expect((await bootError({ recentMesages: 3 })).message).toMatch(/recentMesages/);
    expect((await bootError({ webSearch: { id: 'x' } })).message).toMatch(/webSearch: .*WebSearchProvider/);
  });

  it('boots with valid options', async () => {
    const { harness } = await createTestHarness({ plugins: [storyPlugin({ recentMessages: 0, retrieval: { maxSnippets: 2 } })] });
    await harness.close();
  });
});
