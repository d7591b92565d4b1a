// @troupe/kernel/contracts: behaviour suites (vitest) that every storage implementation runs.
export { describeTreeStoreContract } from './tree-store-contract.js';
export type { TreeStoreFixture } from './tree-store-contract.js';
export { describeSessionLogContract, newEvent } from './session-log-contract.js';
export type { SessionLogFixture } from './session-log-contract.js';
export { codeOf, withFixture } from './contract-helpers.js';
export type { CleanableFixture } from './contract-helpers.js';
export { describeChatControlsContract } from './chat-controls-contract.js';
export { describeSessionTurnLockContract } from './session-turn-lock-contract.js';
export type { SessionTurnLockFixture } from './session-turn-lock-contract.js';
