// Public API of @troupe/model-offline. Explicit named exports only.
export { OFFLINE_MODEL_ID, offlineModel } from './offline-model.js';
export type { OfflineModelOptions } from './offline-model.js';
export { OfflineModelError } from './offline-model-error.js';
export type { OfflineModelErrorCode } from './offline-model-error.js';
export { SCHEDULE_DIO_TOOL, statesLastingRequirement } from './director-stage.js';
export { generateFromSchema } from './json-schema-generator.js';
export type { GeneratorSource } from './json-schema-generator.js';
export { readMessageFacts } from './message-facts.js';
export type { MessageFacts } from './message-facts.js';
