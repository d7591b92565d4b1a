import { type ChatModel, KernelError, type ModelRef, type ModelRegistry } from '@troupe/kernel';
import { MODEL_ENV, modelEnvNames, type OpenAICompatibleOptions } from './config.js';
import { ModelError } from './model-error.js';
import { OPENAI_COMPATIBLE_PROVIDER, openAICompatibleModel } from './openai-compatible-model.js';

/** Options of {@link openAICompatibleRegistry}. */
export interface OpenAICompatibleRegistryOptions {
  /** Named OpenAI-compatible servers, e.g. `{ local: {baseURL: 'http://127.0.0.1:11434/v1', model: 'qwen2.5'} }`. */
  readonly providers: Readonly<Record<string, OpenAICompatibleOptions>>;
  /** Provider used for an empty ref or a ref with only `model` (default: the first provider). */
  readonly defaultProvider?: string;
  /** Other ready-made models by provider id (e.g. `{ offline: offlineModel() }`). */
  readonly models?: Readonly<Record<string, ChatModel>>;
  /** Environment for options left unset (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Environment prefix per provider (default `TROUPE_MODEL`), e.g. `{story: 'TROUPE_STORY_MODEL'}`. */
  readonly envPrefixes?: Readonly<Record<string, string>>;
}

/**
 * A {@link ModelRegistry} over named OpenAI-compatible servers. `resolve({provider, model})`
 * returns a model for exactly that model name on that server (created once, then cached), so a
 * session and the story pipeline can name different provider/model pairs.
 * @param options - providers, the default provider and extra models
 * @returns the registry
 * @throws {ModelError} MODEL_CONFIG_INVALID when there is no provider or a provider's options are invalid
 */
export function openAICompatibleRegistry(options: OpenAICompatibleRegistryOptions): ModelRegistry {
  const names = Object.keys(options.providers);
  const extra = options.models ?? {};
  const defaultProvider = options.defaultProvider ?? names[0] ?? Object.keys(extra)[0];
  if (defaultProvider === undefined || !(defaultProvider in options.providers || defaultProvider in extra)) {
    throw new ModelError('MODEL_CONFIG_INVALID', `The model registry needs a default provider; got "${String(defaultProvider)}", known: ${[...names, ...Object.keys(extra)].join(', ') || 'none'}.`);
  }
  const cache = new Map<string, ChatModel>();
  const modelFor = (provider: string, model: string | undefined): ChatModel => {
    const key = `${provider}/${model ?? ''}`;
    let found = cache.get(key);
    if (!found) {
      const base = options.providers[provider]!;
      found = openAICompatibleModel(model === undefined ? base : { ...base, model }, options.env, options.envPrefixes?.[provider]);
      cache.set(key, found);
    }
    return found;
  };
  // Validate every provider now, so a typo fails at start-up rather than mid-session.
  for (const name of names) modelFor(name, undefined);
  return {
    resolve(ref?: ModelRef): ChatModel {
      const provider = ref?.provider ?? defaultProvider;
      if (provider in options.providers) return modelFor(provider, ref?.model);
      const ready = extra[provider];
      if (ready && (ref?.model === undefined || ready.id === ref.model || ready.id === `${provider}:${ref.model}`)) return ready;
      throw new KernelError(
        'KERNEL_MODEL_NOT_FOUND',
        `No model registered for provider "${provider}"${ref?.model ? `, model "${ref.model}"` : ''}. Known providers: ${[...names, ...Object.keys(extra)].join(', ')}`,
      );
    },
  };
}

/** Options of {@link modelRegistryFromEnv}. */
export interface RegistryFromEnvOptions {
  /** Environment to read (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Model to use when `TROUPE_MODEL_BASE_URL` is not set (e.g. the offline model). */
  readonly fallback?: ChatModel;
  /** Provider id under which the fallback is also registered (default: the fallback's id). */
  readonly fallbackProvider?: string;
  /**
   * More providers read from the environment by prefix, e.g. `{story: 'TROUPE_STORY_MODEL'}`: each
   * is registered when `<prefix>_BASE_URL` is set and reads `<prefix>` (the model),
   * `<prefix>_API_KEY`, `<prefix>_STRUCTURED_OUTPUT`, `<prefix>_STREAM_USAGE`, `<prefix>_TOOLS`, ….
   */
  readonly envProviders?: Readonly<Record<string, string>>;
}

/**
 * A registry configured from `TROUPE_MODEL_BASE_URL`, `TROUPE_MODEL_API_KEY` and `TROUPE_MODEL`:
 * the default is the `openai-compatible` provider when the base URL is set, otherwise `fallback`.
 * The fallback stays resolvable by its provider id either way.
 * @param options - environment and fallback model
 * @returns the registry
 * @throws {ModelError} MODEL_CONFIG_INVALID when the base URL is unset and there is no fallback,
 *   or when the variables are malformed (e.g. `TROUPE_MODEL` missing)
 */
export function modelRegistryFromEnv(options: RegistryFromEnvOptions = {}): ModelRegistry {
  const env = options.env ?? process.env;
  const fallbackProvider = options.fallbackProvider ?? options.fallback?.id;
  const models = options.fallback && fallbackProvider ? { [fallbackProvider]: options.fallback } : {};
  const configured = (env[MODEL_ENV.baseURL] ?? '').trim() !== '';
  if (!configured && !options.fallback) {
    throw new ModelError('MODEL_CONFIG_INVALID', `Set ${MODEL_ENV.baseURL} and ${MODEL_ENV.model} (and ${MODEL_ENV.apiKey} if the server needs one), or pass a fallback model.`);
  }
  const extraProviders = Object.fromEntries(
    Object.entries(options.envProviders ?? {}).filter(([, prefix]) => (env[modelEnvNames(prefix).baseURL] ?? '').trim() !== ''),
  );
  return openAICompatibleRegistry({
    providers: { ...(configured ? { [OPENAI_COMPATIBLE_PROVIDER]: {} } : {}), ...Object.fromEntries(Object.keys(extraProviders).map((name) => [name, {}])) },
    envPrefixes: extraProviders,
    ...(configured ? { defaultProvider: OPENAI_COMPATIBLE_PROVIDER } : fallbackProvider ? { defaultProvider: fallbackProvider } : {}),
    models,
    env,
  });
}
