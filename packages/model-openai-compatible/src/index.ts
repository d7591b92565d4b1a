// Public API of @troupe/model-openai-compatible. Explicit named exports only.
export { OPENAI_COMPATIBLE_PROVIDER, openAICompatibleModel } from './openai-compatible-model.js';
export { MODEL_ENV, resolveOpenAICompatibleConfig } from './config.js';
export type { OpenAICompatibleConfig, OpenAICompatibleOptions } from './config.js';
export { modelRegistryFromEnv, openAICompatibleRegistry } from './registry.js';
export type { OpenAICompatibleRegistryOptions, RegistryFromEnvOptions } from './registry.js';
export { generateJson } from './generate-json.js';
export type { GenerateJsonOptions, JsonResult } from './generate-json.js';
export { ModelError } from './model-error.js';
export type { ModelErrorCode, ModelErrorOptions } from './model-error.js';
