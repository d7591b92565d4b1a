import type { ModelCapabilities } from '@troupe/kernel';
import type { OpenAICompatibleConfig, StructuredOutputLevel } from './config.js';

/**
 * What one model instance has learned about its server from the answers it got, so a refusal
 * costs one extra request once, not on every turn: whether `stream_options` is accepted, which
 * structured output level works, whether tools work, and whether answers start inside a
 * `<think>` block the template opened.
 */
export class ServerKnowledge {
  /** `stream_options.include_usage`: accepted, refused, or not tried yet. */
  streamUsage: 'accepted' | 'refused' | 'unknown' = 'unknown';
  /** The structured output level that last worked (undefined: none confirmed). */
  jsonLevel: StructuredOutputLevel | undefined;
  /** Tool calling: known to work, known not to, or unknown. */
  tools: boolean | undefined;
  /** The model's answers start in reasoning (it once sent `</think>` without `<think>`). */
  startsInReasoning: boolean;
  readonly #config: OpenAICompatibleConfig;

  /** @param config - the model's settings (fixed settings win over anything learned) */
  constructor(config: OpenAICompatibleConfig) {
    this.#config = config;
    this.startsInReasoning = config.thinkTags === 'open-in-prompt';
  }

  /** Whether the next stream should ask for usage. */
  get sendStreamUsage(): boolean {
    if (this.#config.streamUsage === 'off') return false;
    if (this.#config.streamUsage === 'on') return true;
    return this.streamUsage !== 'refused';
  }

  /** Whether a refused stream may be retried once without `stream_options`. */
  get mayDropStreamUsage(): boolean {
    return this.#config.streamUsage === 'auto' && this.streamUsage === 'unknown';
  }

  /** The capabilities the model reports (see `ChatModel.capabilities`). */
  get capabilities(): ModelCapabilities {
    const window = this.#config.contextTokens === undefined ? {} : { contextTokens: this.#config.contextTokens };
    const tools = this.#config.tools === 'on' ? true : this.#config.tools === 'off' ? false : this.tools;
    return tools === undefined ? window : { tools, ...window };
  }
}
