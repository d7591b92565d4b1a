// The context budget of the actor's prompt: history fitted to `contextKeys.tokenBudget`.
export { fitHistoryToBudget } from './fit-history.js';
export type { HistoryFit } from './fit-history.js';
export { CONTEXT_TRIMMED_EVENT, contextTrimmedData } from './trim-event.js';
export type { ContextTrimmedData } from './trim-event.js';
export { selectWithinBudget } from './within-budget.js';
