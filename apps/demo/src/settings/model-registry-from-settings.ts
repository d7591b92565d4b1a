import type { ChatModel, ModelRef, ModelRegistry, TokenBudgetSettings } from '@troupe/kernel';
import { MODEL_ENV, modelRegistryFromEnv, type OpenAICompatibleOptions, openAICompatibleRegistry } from '@troupe/model-openai-compatible';
import type { ModelSettings } from './model-settings.js';

/** The provider name of the story pipeline's own server (`pipeline.provider: "story"`). */
export const STORY_PROVIDER = 'story';
const CHAT_PROVIDER = 'openai-compatible';

/** Where the models come from right now. */
export type ModelSource = 'environment' | 'settings' | 'offline';

/** The story pipeline's environment prefix: `TROUPE_STORY_MODEL_BASE_URL`, `TROUPE_STORY_MODEL`, `TROUPE_STORY_MODEL_STRUCTURED_OUTPUT`, …. */
export const STORY_ENV_PREFIX = 'TROUPE_STORY_MODEL';

// The reply length is not a connection setting: it is the chat's token budget (`responseTokens`),
// which the kernel sends with the actor's call only (a director's or a stage's JSON answer is not
// cut to it), in the field the server takes (`max_completion_tokens` for OpenAI's reasoning models).
function connection(settings: Connection, contextSize?: number): OpenAICompatibleOptions {
  return {
    ...(settings.baseUrl !== undefined ? { baseURL: settings.baseUrl } : {}),
    ...(settings.model !== undefined ? { model: settings.model } : {}),
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    ...(settings.structuredOutput !== undefined ? { structuredOutput: settings.structuredOutput } : {}),
    ...(settings.streamUsage !== undefined ? { streamUsage: settings.streamUsage } : {}),
    ...(settings.tools !== undefined ? { tools: settings.tools } : {}),
    ...(contextSize !== undefined ? { contextTokens: contextSize } : {}),
    ...(settings.timeoutSeconds !== undefined ? { timeoutMs: settings.timeoutSeconds * 1000 } : {}),
  };
}

type Connection = NonNullable<ModelSettings['story']>;

function storyProvider(settings: ModelSettings): Record<string, OpenAICompatibleOptions> {
  const story = settings.story;
  return story?.baseUrl && story.model ? { [STORY_PROVIDER]: connection(story) } : {};
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
  #tokenBudget: TokenBudgetSettings | undefined;

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

  /** The chat's token budget from the saved settings (context size, reply length), if any. */
  get tokenBudget(): TokenBudgetSettings | undefined {
    return this.#tokenBudget;
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
    // The chat's token budget follows the saved context size and reply length (the kernel keeps
    // the reply's share free and fits the history into the rest).
    this.#tokenBudget =
      settings.contextSize !== undefined || settings.maxTokens !== undefined
        ? { ...(settings.contextSize !== undefined ? { contextTokens: settings.contextSize } : {}), ...(settings.maxTokens !== undefined ? { responseTokens: settings.maxTokens } : {}) }
        : undefined;
    const fallback = { offline: this.#offline };
    if ((this.#env[MODEL_ENV.baseURL] ?? '').trim() !== '') {
      this.#current = withStory(fromEnv(this.#env, this.#offline), settings);
      this.#source = 'environment';
      return;
    }
    if (settings.baseUrl && settings.model) {
      this.#current = openAICompatibleRegistry({
        providers: { [CHAT_PROVIDER]: connection(settings, settings.contextSize), ...storyProvider(settings) },
        defaultProvider: CHAT_PROVIDER,
        models: fallback,
        env: {},
      });
      this.#source = 'settings';
      return;
    }
    this.#current = withStory(fromEnv(this.#env, this.#offline), settings);
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

// The environment's models: the chat's `TROUPE_MODEL_*`, and `story` from `TROUPE_STORY_MODEL_*`.
function fromEnv(env: Readonly<Record<string, string | undefined>>, offline: ChatModel): ModelRegistry {
  return modelRegistryFromEnv({ env, fallback: offline, envProviders: { [STORY_PROVIDER]: STORY_ENV_PREFIX } });
}

// The story provider is added next to whatever else serves the chat.
function withStory(base: ModelRegistry, settings: ModelSettings): ModelRegistry {
  const providers = storyProvider(settings);
  if (Object.keys(providers).length === 0) return base;
  const story = openAICompatibleRegistry({ providers, env: {} });
  return { resolve: (ref) => (ref?.provider === STORY_PROVIDER ? story.resolve(ref) : base.resolve(ref)) };
}
