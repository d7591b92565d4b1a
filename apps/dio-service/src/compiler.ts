import { abortReason, type ChatModel, describeError, type Logger } from '@troupe/kernel';

/** Longest compiled prompt the service accepts from a model (characters). */
export const MAX_COMPILED_PROMPT = 100_000;

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

const REQUIREMENTS_HEADING = '## 长期要求 / Lasting requirements';

/**
 * The deterministic merge: the base prompt, then every active requirement as a list. The result
 * is a complete replacement for the character prompt (never just the new sentence).
 * @param base - base character prompt
 * @param requirements - active requirements, oldest first
 * @returns the merged prompt (the base alone when there are no requirements)
 */
export function mergePrompt(base: string, requirements: readonly string[]): string {
  const trimmed = base.trimEnd();
  if (requirements.length === 0) return trimmed;
  return `${trimmed}\n\n${REQUIREMENTS_HEADING}\n${requirements.map((text) => `- ${text.trim().replace(/\s*\n\s*/g, ' ')}`).join('\n')}`;
}

const SYSTEM_PROMPT = [
  'You maintain a roleplay character prompt. Rewrite the draft below into ONE complete character prompt',
  'that keeps everything in the base prompt and applies every lasting requirement listed in it.',
  'Answer with the complete prompt text only, no commentary.',
].join(' ');

/**
 * Compiles through a {@link ChatModel} (`meta.stage = 'dio/compile'`). The model receives the
 * deterministic merge as the draft; its answer is used only when it is non-empty, not too long,
 * and names the character; otherwise (or when the model fails) the merge is used. Cancellation
 * propagates.
 * @param model - the compiling model (the offline model echoes the draft)
 * @param input - base, requirements, name, ids and signal
 * @param logger - diagnostics
 * @returns the complete compiled prompt
 * @throws the abort reason when `input.signal` aborts
 */
export async function compilePrompt(model: ChatModel, input: CompileInput, logger: Logger): Promise<CompileResult> {
  if (input.signal.aborted) throw abortReason(input.signal);
  const merged = mergePrompt(input.base, input.requirements);
  let text: string;
  try {
    const response = await model.generate({
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: merged },
      ],
      signal: input.signal,
      meta: { stage: 'dio/compile', sessionId: input.sessionId, turnId: input.turnId },
      temperature: 0,
    });
    text = response.text.trim();
  } catch (error) {
    if (input.signal.aborted) throw abortReason(input.signal);
    logger.warn('compile model failed; using the deterministic merge', { error: describeError(error) });
    return { compiledPrompt: merged, compiledBy: 'merge' };
  }
  const problem = validateCompiled(text, input.characterName);
  if (problem) {
    logger.warn('compile model output rejected; using the deterministic merge', { problem });
    return { compiledPrompt: merged, compiledBy: 'merge' };
  }
  return { compiledPrompt: text, compiledBy: text === merged ? 'merge' : 'model' };
}

/**
 * Checks a model's compiled prompt.
 * @param text - the model's answer, trimmed
 * @param characterName - the name it must contain, when known
 * @returns why it is unusable, or undefined when it is fine
 */
export function validateCompiled(text: string, characterName: string | undefined): string | undefined {
  if (text.length === 0) return 'empty';
  if (text.length > MAX_COMPILED_PROMPT) return `longer than ${MAX_COMPILED_PROMPT} characters`;
  if (characterName && !text.includes(characterName)) return `does not name the character "${characterName}"`;
  return undefined;
}
