import type { ChatModel, ModelRef, ModelRegistry } from '@troupe/kernel';
import { MODEL_ENV, modelRegistryFromEnv, type OpenAICompatibleOptions, openAICompatibleRegistry } from '@troupe/model-openai-compatible';
import type { ModelSettings } from './model-settings.js';

/** The provider name of the story pipeline's own server (`pipeline.provider: "story"`). */
export const STORY_PROVIDER = 'story';
const CHAT_PROVIDER = 'openai-compatible';

/** Where the models come from right now. */
export type ModelSource = 'environment' | 'settings' | 'offline';

function connection(settings: { baseUrl?: string | undefined; model?: string | undefined; apiKey?: string | undefined }, maxTokens: number | undefined): OpenAICompatibleOptions {
  return {
    ...(settings.baseUrl !== undefined ? { baseURL: settings.baseUrl } : {}),
    ...(settings.model !== undefined ? { model: settings.model } : {}),
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    ...(maxTokens !== undefined ? { extraBody: { max_tokens: maxTokens } } : {}),
  };
}

function storyProvider(settings: ModelSettings): Record<string, OpenAICompatibleOptions> {
  const story = settings.story;
  return story?.baseUrl && story.model ? { [STORY_PROVIDER]: connection(story, settings.maxTokens) } : {};
}

/**
 * A model registry whose models can be replaced while the harness runs, so settings saved in the
 * UI apply to the next turn without a restart. The environment wins: while
 * `TROUPE_MODEL_BASE_URL` is set, the chat model comes from it and the saved connection is ignored.
 */
export class SwitchableModels implements ModelRegistry {
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #offline: ChatModel;
  #current!: ModelRegistry;
  #source: ModelSource = 'offline';

  /**
   * @param env - the process environment
   * @param offline - the offline simulation (the fallback)
   * @param settings - the saved settings
   */
  constructor(env: Readonly<Record<string, string | undefined>>, offline: ChatModel, settings: ModelSettings) {
    this.#env = env;
    this.#offline = offline;
    this.apply(settings);
  }

  /** Where the default model comes from. */
  get source(): ModelSource {
    return this.#source;
  }

  /** The default model's id (`offline`, `openai-compatible:qwen2.5`, …). */
  get modelId(): string {
    return this.#current.resolve().id;
  }

  /**
   * Rebuilds the models from settings (the environment still wins).
   * @param settings - validated settings
   * @throws {ModelError} MODEL_CONFIG_INVALID for a connection the provider refuses
   */
  apply(settings: ModelSettings): void {
    const fallback = { offline: this.#offline };
    if ((this.#env[MODEL_ENV.baseURL] ?? '').trim() !== '') {
      this.#current = withStory(modelRegistryFromEnv({ env: this.#env, fallback: this.#offline }), settings);
      this.#source = 'environment';
      return;
    }
    if (settings.baseUrl && settings.model) {
      this.#current = openAICompatibleRegistry({ providers: { [CHAT_PROVIDER]: connection(settings, settings.maxTokens), ...storyProvider(settings) }, defaultProvider: CHAT_PROVIDER, models: fallback, env: {} });
      this.#source = 'settings';
      return;
    }
    this.#current = withStory(modelRegistryFromEnv({ env: this.#env, fallback: this.#offline }), settings);
    this.#source = 'offline';
  }

  /**
   * @param ref - provider/model, or nothing for the default
   * @returns the model
   */
  resolve(ref?: ModelRef): ChatModel {
    return this.#current.resolve(ref);
  }
}

// The story provider is added next to whatever else serves the chat.
function withStory(base: ModelRegistry, settings: ModelSettings): ModelRegistry {
  const providers = storyProvider(settings);
  if (Object.keys(providers).length === 0) return base;
  const story = openAICompatibleRegistry({ providers, env: {} });
  return { resolve: (ref) => (ref?.provider === STORY_PROVIDER ? story.resolve(ref) : base.resolve(ref)) };
}
