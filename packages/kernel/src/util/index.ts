// @troupe/kernel/util: small runtime helpers several packages share (hashing, cancellation,
// deadlines, retries and polling on the harness clock, capped body reads, reading JSON out of model answers, error summaries). Kept off the main entry so it lists only the plugin API.
export { sha256Hex } from '../ports/tree-rules.js';
export { abortReason, followSignals, isAbortError, linkedController, raceAbort, throwIfAborted } from '../abort.js';
export { extractJson, stripReasoning } from '../text/model-answer.js';
export type { ExtractJsonOptions } from '../text/model-answer.js';
export { pollOnGrid, retryWithDelays, runWithin, runWithinLazily } from '../timing/on-clock.js';
export type { LazySignal } from '../timing/on-clock.js';
export { DeadlineGroup } from '../timing/deadline-group.js';
// Work that outlives its caller (an app's background jobs), as Effect fibers in one scope that close() interrupts.
export { FiberScope } from '../background/fiber-scope.js';
export type { ScopedJob } from '../background/fiber-scope.js';
export { retryAfterMs } from './retry-after.js';
export type { HeaderLookup } from './retry-after.js';
export type { PollOnGridOptions, PollOutcome, PollResult, RetryWithDelaysOptions } from '../timing/on-clock.js';
export { readCappedBytes, readCappedText } from '../io/read-capped.js';
export { describeError, toError } from '../errors.js';
// A JSON value many session events carry unchanged (a stage's JSON Schema): frozen, its text written once.
export { freezeJson } from '../ports/frozen-json.js';
export { formatIssuePath } from '../errors/format-issues.js';
// The framing allowance of the kernel's context budget, for plugins that fit prompts of their own the same way.
export { MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS } from '../budget/token-budget.js';
export { TurnInputSchema } from '../turn/turn-input.js';
