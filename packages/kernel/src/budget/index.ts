// The context budget: the per-turn budget plugins read (`contextKeys.tokenBudget`), the
// kernel's estimate tokenizer, and the counters that calibrate against server usage.
export { estimateTokenizer, estimateTokens } from './estimate-tokenizer.js';
export type { EstimateTokenizer } from './estimate-tokenizer.js';
export { DEFAULT_TOKEN_BUDGET, MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS } from './token-budget.js';
export type { TokenBudgetSettings, TurnTokenBudget } from './token-budget.js';
export { TokenCounters } from './token-counter.js';
export type { CalibrationResult } from './token-counter.js';
