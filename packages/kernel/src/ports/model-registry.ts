import { KernelError } from '../errors.js';
import type { ChatModel, ModelRef, ModelRegistry } from './chat-model.js';

/**
 * A registry with a default model and named entries. Keys are `provider` or `provider/model`;
 * `resolve({provider, model})` tries `provider/model`, then `provider`.
 * @param defaultModel - returned for an empty ref
 * @param entries - named models
 * @example createModelRegistry(offline, { 'openai-compatible/qwen2.5': qwen })
 */
export function createModelRegistry(defaultModel: ChatModel, entries: Readonly<Record<string, ChatModel>> = {}): ModelRegistry {
  return {
    resolve(ref?: ModelRef): ChatModel {
      if (!ref || (ref.provider === undefined && ref.model === undefined)) return defaultModel;
      const provider = ref.provider ?? '';
      const found = (ref.model !== undefined ? entries[`${provider}/${ref.model}`] : undefined) ?? entries[provider];
      if (found) return found;
      const known = Object.keys(entries);
      throw new KernelError(
        'KERNEL_MODEL_NOT_FOUND',
        `No model registered for provider "${provider}"${ref.model ? `, model "${ref.model}"` : ''}. Known: ${known.join(', ') || 'only the default model'}`,
      );
    },
  };
}
