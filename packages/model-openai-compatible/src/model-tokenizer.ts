import { createRequire } from 'node:module';
import type { Tokenizer } from '@troupe/kernel';
import type { TokenizerSetting } from './config.js';

type Encoding = 'o200k_base' | 'cl100k_base';

interface GptTokenizerEncoding {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
}

const require = createRequire(import.meta.url);
const loaded = new Map<Encoding, GptTokenizerEncoding>();
// Special-token text inside a message ("<|endoftext|>") is ordinary text to count, not a control token.
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

/**
 * The BPE that fits a model name, if any: `o200k_base` for GPT-4o, GPT-4.1/4.5/5, gpt-oss and
 * the o-series; `cl100k_base` for GPT-4, GPT-3.5 and Llama 3 (whose 128k vocabulary extends
 * cl100k's). Other families (Qwen, Mistral, Gemma, DeepSeek, …) have tokenizers no pure-JS BPE
 * here matches; they get the kernel's estimate, calibrated by the server's usage.
 * @param model - the model name as the server knows it (`openai/gpt-4o`, `llama3.1:8b`, …)
 * @returns the encoding name, or undefined
 */
export function encodingForModel(model: string): Encoding | undefined {
  const name = model.toLowerCase().split('/').pop() ?? '';
  if (/^(?:gpt-4o|gpt-4\.[1-9]|gpt-5|gpt-oss|chatgpt|o[1-9](?:$|[-_:.]))/.test(name)) return 'o200k_base';
  if (/^(?:gpt-4|gpt-3\.5)|llama-?3/.test(name)) return 'cl100k_base';
  return undefined;
}

/**
 * The tokenizer of a model for the context budget, from `gpt-tokenizer` (pure JS, loaded on
 * first count: the ranks take a few hundred ms and tens of MB, so a model that never counts
 * never pays). Undefined means "use the kernel's estimate".
 * @param setting - the configured `tokenizer`
 * @param model - the model name
 * @returns a tokenizer, or undefined
 */
export function modelTokenizer(setting: TokenizerSetting, model: string): Tokenizer | undefined {
  const encoding = setting === 'auto' ? encodingForModel(model) : setting === 'estimate' ? undefined : setting;
  if (encoding === undefined) return undefined;
  return {
    id: encoding,
    exact: setting !== 'auto' || !/llama/i.test(model),
    count: (text: string) => load(encoding).countTokens(text, NO_SPECIAL),
  };
}

function load(encoding: Encoding): GptTokenizerEncoding {
  let found = loaded.get(encoding);
  if (!found) {
    // Synchronous on purpose: counting is synchronous, and only the first count waits.
    found = require(`gpt-tokenizer/cjs/encoding/${encoding}`) as GptTokenizerEncoding;
    loaded.set(encoding, found);
  }
  return found;
}
