import { createHarness } from '../harness/create-harness.js';
import type { Harness, HarnessOptions } from '../harness/harness-options.js';
import { MemorySessionLog } from './memory-session-log.js';
import { MemoryTreeStore } from './memory-tree-store.js';
import { ScriptedChatModel } from './scripted-chat-model.js';

/** What {@link createTestHarness} returns: the harness and the fakes behind it. */
export interface TestHarness {
  readonly harness: Harness;
  readonly sessionLog: MemorySessionLog;
  readonly trees: MemoryTreeStore;
  readonly model: ScriptedChatModel;
}

/**
 * A harness on in-memory stores and a scripted model, so a team can test its plugin alone.
 * Any option can be overridden.
 * @param options - harness options; `sessionLog`, `trees` and `model` default to fakes
 */
export async function createTestHarness(
  options: Partial<HarnessOptions> & { readonly model?: ScriptedChatModel; readonly sessionLog?: MemorySessionLog; readonly trees?: MemoryTreeStore } = {},
): Promise<TestHarness> {
  const sessionLog = options.sessionLog ?? new MemorySessionLog();
  const trees = options.trees ?? new MemoryTreeStore();
  const model = options.model ?? new ScriptedChatModel();
  const { models, ...rest } = options;
  const harness = await createHarness({ ...rest, sessionLog, trees, ...(models ? { models } : { model }) });
  return { harness, sessionLog, trees, model };
}
