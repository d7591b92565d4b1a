import { abortReason, describeError, stripReasoning } from '@troupe/kernel/util';
import type { ChatModel, Logger } from '@troupe/kernel';
import { checkCompiled, containsRequirement, readVerification, VERIFY_SCHEMA, verifyMessages } from './compile-checks.js';
import { mergePrompt } from './merge-prompt.js';

export { MAX_COMPILED_PROMPT } from './compile-checks.js';
export { mergePrompt } from './merge-prompt.js';

/** What a compilation starts from. */
export interface CompileInput {
  /** The registered base character prompt. */
  readonly base: string;
  /** The character's name; a model's output must mention it. */
  readonly characterName: string | undefined;
  /** Every active requirement, oldest first. */
  readonly requirements: readonly string[];
  readonly signal: AbortSignal;
  /** Ids for the model call's meta. */
  readonly sessionId: string;
  readonly turnId: string;
}

/** A compiled complete character prompt and how it was produced. */
export interface CompileResult {
  readonly compiledPrompt: string;
  readonly compiledBy: 'model' | 'merge';
}

const SYSTEM_PROMPT = [
  'You maintain a roleplay character prompt. Rewrite the draft below into ONE complete character prompt',
  'that keeps everything in the base prompt and applies every lasting requirement listed in it;',
  'where a requirement contradicts the base, the requirement wins and the contradicted trait is removed.',
  'Answer with the complete prompt text only, no commentary.',
].join(' ');

/**
 * Compiles through a {@link ChatModel} (`meta.stage = 'dio/compile'`). The model receives the
 * deterministic merge as the draft. Its answer — with any reasoning removed (`<think>…</think>`;
 * reasoning fields never reach `text`) — is used only when it is non-empty, not too long, names
 * the character, keeps the base, and keeps every active requirement's intent: a requirement whose
 * words it contains (the rule the merge satisfies) counts as kept, every other one must be
 * confirmed by a verification call (`dio/verify`) quoting the sentence that applies it, and the
 * quote must really be in the prompt. Otherwise (or when a model call fails) the merge is used.
 * Cancellation propagates.
 * @param model - the compiling model (the offline model echoes the draft)
 * @param input - base, requirements, name, ids and signal
 * @param logger - diagnostics
 * @returns the complete compiled prompt
 * @throws the abort reason when `input.signal` aborts
 */
export async function compilePrompt(model: ChatModel, input: CompileInput, logger: Logger): Promise<CompileResult> {
  if (input.signal.aborted) throw abortReason(input.signal);
  const merged = mergePrompt(input.base, input.requirements);
  const meta = (stage: string) => ({ stage, sessionId: input.sessionId, turnId: input.turnId });
  const fallback = (problem: string): CompileResult => {
    logger.warn('compile model output rejected; using the deterministic merge', { problem });
    return { compiledPrompt: merged, compiledBy: 'merge' };
  };
  let text: string;
  try {
    const response = await model.generate({
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: merged },
      ],
      signal: input.signal,
      meta: meta('dio/compile'),
      temperature: 0,
    });
    text = stripReasoning(response.text);
  } catch (error) {
    if (input.signal.aborted) throw abortReason(input.signal);
    return fallback(`the model failed: ${describeError(error).message}`);
  }
  const problem = validateCompiled(text, input.characterName, input.base);
  if (problem) return fallback(problem);
  if (text === merged) return { compiledPrompt: merged, compiledBy: 'merge' };
  const unverified = input.requirements.flatMap((requirement, index) => (containsRequirement(text, requirement) ? [] : [{ index: index + 1, text: requirement }]));
  if (unverified.length > 0) {
    try {
      const verdict = await model.generate({
        messages: verifyMessages(text, unverified),
        json: { schema: VERIFY_SCHEMA, name: 'dio_verify' },
        signal: input.signal,
        meta: meta('dio/verify'),
        temperature: 0,
      });
      const lost = readVerification(verdict.text, text, unverified.map((requirement) => requirement.index));
      if (lost) return fallback(lost);
    } catch (error) {
      if (input.signal.aborted) throw abortReason(input.signal);
      return fallback(`the verification failed: ${describeError(error).message}`);
    }
  }
  return { compiledPrompt: text, compiledBy: 'model' };
}

/**
 * The structural checks of a model's compiled prompt (reasoning already removed).
 * @param text - the model's answer, trimmed
 * @param characterName - the name it must contain, when known
 * @param base - the base prompt it must keep (when given, an answer under half its length fails)
 * @returns why it is unusable, or undefined when it is fine
 */
export function validateCompiled(text: string, characterName: string | undefined, base = ''): string | undefined {
  return checkCompiled(text, { base, characterName });
}

