// @troupe/kernel/testing: fakes with real semantics, for testing plugins and apps.
export { MemorySessionLog } from './memory-session-log.js';
/** Re-exported for compatibility; import it from `@troupe/kernel`. */
export { parseExport } from '../ports/session-export.js';
export { MemoryTreeStore } from './memory-tree-store.js';
export { ScriptedChatModel, lastUserMessage } from './scripted-chat-model.js';
export type { ScriptedAnswer, ScriptedChatModelOptions } from './scripted-chat-model.js';
export { ManualClock } from './manual-clock.js';
export { snapshotOutside } from './outside-snapshot.js';
export { createTestHarness } from './test-harness.js';
export type { TestHarness } from './test-harness.js';
