import { extractJson, stripReasoning } from '@troupe/kernel/util';
import * as z from 'zod';

/** Longest compiled prompt the service accepts from a model (characters). */
export const MAX_COMPILED_PROMPT = 100_000;

// Comparison ignores spacing and punctuation, so "少用比喻。" matches "少用比喻".
function normalized(text: string): string {
  return text.toLowerCase().replace(/[\s\p{P}\p{S}]+/gu, '');
}

/**
 * The rule the deterministic merge satisfies: the requirement's own words are in the text.
 * @param text - a compiled prompt
 * @param requirement - a lasting requirement
 */
export function containsRequirement(text: string, requirement: string): boolean {
  const needle = normalized(requirement);
  return needle === '' || normalized(text).includes(needle);
}

/** What a compiled prompt must keep, for {@link checkCompiled}. */
export interface CompiledExpectations {
  readonly base: string;
  readonly characterName: string | undefined;
}

/**
 * The structural checks of a model's compiled prompt: not empty, not too long, names the
 * character, and keeps the base (not drastically shorter than it — a model that answers only the
 * new rule has dropped the character).
 * @param text - the model's answer, reasoning removed
 * @param expected - the base prompt and character name
 * @returns why it is unusable, or undefined
 */
export function checkCompiled(text: string, expected: CompiledExpectations): string | undefined {
  if (text.length === 0) return 'empty';
  if (text.length > MAX_COMPILED_PROMPT) return `longer than ${MAX_COMPILED_PROMPT} characters`;
  if (expected.characterName && !text.includes(expected.characterName)) return `does not name the character "${expected.characterName}"`;
  if (normalized(text).length < normalized(expected.base).length * 0.5) return 'drops most of the base prompt';
  return undefined;
}

/** JSON Schema of the verification answer. */
export const VERIFY_SCHEMA: Readonly<Record<string, unknown>> = {
  type: 'object',
  properties: {
    requirements: {
      type: 'array',
      items: { type: 'object', properties: { index: { type: 'integer' }, kept: { type: 'boolean' }, evidence: { type: 'string' } }, required: ['index', 'kept', 'evidence'] },
    },
  },
  required: ['requirements'],
};

const VerifySchema = z.object({
  requirements: z.array(z.object({ index: z.number().int(), kept: z.boolean(), evidence: z.string() }).loose()),
});

/** The verification question: does the prompt apply each requirement, quoting where. */
export function verifyMessages(text: string, requirements: readonly { index: number; text: string }[]): { role: 'system' | 'user'; content: string }[] {
  return [
    {
      role: 'system',
      content:
        'You check a rewritten roleplay character prompt. For each numbered requirement, say whether the prompt applies it, and quote the exact sentence of the prompt that applies it. Answer with JSON only: {"requirements": [{"index": 1, "kept": true, "evidence": "<exact quote>"}]}.',
    },
    { role: 'user', content: `Prompt:\n${text}\n\nRequirements:\n${requirements.map((requirement) => `${requirement.index}. ${requirement.text}`).join('\n')}` },
  ];
}

function parseJsonObject(text: string): unknown {
  const json = extractJson(stripReasoning(text), { arrays: false });
  return json === undefined ? undefined : JSON.parse(json);
}

/**
 * Reads the verification answer. A requirement counts as kept only when the model says so and
 * its quote really is in the prompt, so a model cannot wave a rewrite through.
 * @param answer - the verifying model's answer
 * @param text - the compiled prompt
 * @param indexes - the requirements that had to be verified (1-based)
 * @returns why the rewrite loses a requirement, or undefined when every one is kept
 */
export function readVerification(answer: string, text: string, indexes: readonly number[]): string | undefined {
  const parsed = VerifySchema.safeParse(parseJsonObject(answer));
  if (!parsed.success) return 'the verification answer is not the expected JSON';
  for (const index of indexes) {
    const verdict = parsed.data.requirements.find((entry) => entry.index === index);
    if (!verdict?.kept) return `requirement ${index} is not applied`;
    if (verdict.evidence.trim() === '' || !normalized(text).includes(normalized(verdict.evidence))) return `the evidence for requirement ${index} is not in the prompt`;
  }
  return undefined;
}
