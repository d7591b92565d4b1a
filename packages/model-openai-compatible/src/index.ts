// Public API of @troupe/model-openai-compatible. Explicit named exports only.
export { OPENAI_COMPATIBLE_PROVIDER, openAICompatibleModel } from './openai-compatible-model.js';
export { DEFAULT_ENV_PREFIX, MODEL_ENV, modelEnvNames, resolveOpenAICompatibleConfig } from './config.js';
export type {
  OpenAICompatibleConfig,
  OpenAICompatibleOptions,
  StreamUsageSetting,
  StructuredOutputLevel,
  StructuredOutputSetting,
  ThinkTagsSetting,
  TokenizerSetting,
  ToolsSetting,
} from './config.js';
export { encodingForModel } from './model-tokenizer.js';
export { modelRegistryFromEnv, openAICompatibleRegistry } from './registry.js';
export type { OpenAICompatibleRegistryOptions, RegistryFromEnvOptions } from './registry.js';
export { generateJson } from './generate-json.js';
export type { GenerateJsonOptions, JsonResult } from './generate-json.js';
export { ModelError } from './model-error.js';
export type { ModelErrorCode, ModelErrorOptions } from './model-error.js';
