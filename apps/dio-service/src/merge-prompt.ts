/** Heading of the requirements section of a merged prompt. */
export const REQUIREMENTS_HEADING = '## 长期要求 / Lasting requirements';

/** The precedence rule stated under the heading, so no contradiction is left without a winner. */
export const PRECEDENCE_NOTE =
  '（以下长期要求优先于上文中与之冲突的设定；后面的要求优先于前面的。 / These lasting requirements override anything above that contradicts them; a later one overrides an earlier one.）';

// Words that turn a requirement against something: "少用比喻", "不要再叫我主人", "stop using
// metaphors". What follows them, up to the clause's end, is what the requirement reverses.
const CHINESE_REVERSAL = /(?:少用|少些|少说|减少|不要再?|别再?|不再|不许|不准|禁止|停止|避免|不用|不必)([\p{Script=Han}A-Za-z]{2,12})/gu;
const ENGLISH_REVERSAL = /\b(?:stop|avoid|never|no more|less|fewer|don'?t|do not|quit)\s+(?:using\s+|use\s+|saying\s+|say\s+|being\s+)?([a-z][a-z' -]{2,40})/gi;
const ENGLISH_STOPWORDS = new Set(['the', 'and', 'any', 'so', 'too', 'much', 'many', 'more', 'with', 'your', 'you', 'them', 'such', 'that', 'this', 'very', 'about', 'like']);

/**
 * What a requirement reverses, as terms to look for in the base prompt: for Chinese the phrase
 * after a reversal word and its tails of 2–4 characters ("叫我主人" → "叫我主人", "我主人", "主人"),
 * for English the content words after it ("stop using metaphors" → "metaphor").
 * @param requirement - one lasting requirement
 * @returns the terms, longest first
 */
export function reversedTerms(requirement: string): string[] {
  const terms = new Set<string>();
  for (const match of requirement.matchAll(CHINESE_REVERSAL)) {
    const phrase = (match[1] ?? '').replace(/^再/, '');
    for (let length = Math.min(4, phrase.length); length >= 2; length--) terms.add(phrase.slice(phrase.length - length));
  }
  for (const match of requirement.matchAll(ENGLISH_REVERSAL)) {
    for (const word of (match[1] ?? '').toLowerCase().split(/[^a-z']+/)) {
      if (word.length >= 4 && !ENGLISH_STOPWORDS.has(word)) terms.add(word.replace(/(?:es|s)$/, ''));
    }
  }
  return [...terms].sort((a, b) => b.length - a.length);
}

// Split after each sentence end, keeping every character: joined again, the pieces are the text.
function sentences(text: string): string[] {
  return text.split(/(?<=[。！？!?.\n])/u);
}

/**
 * The deterministic merge: the base prompt, then every active requirement as a list under a
 * heading that says they override the base (and later ones earlier ones). A base sentence that a
 * requirement reverses ("莉娅说话爱用比喻" against "少用比喻") is marked with the requirement that wins,
 * so the old trait never stands next to the new rule unresolved. The result is a complete
 * replacement for the character prompt (never just the new sentence).
 * @param base - base character prompt
 * @param requirements - active requirements, oldest first
 * @returns the merged prompt (the base alone when there are no requirements)
 */
export function mergePrompt(base: string, requirements: readonly string[]): string {
  const trimmed = base.trimEnd();
  if (requirements.length === 0) return trimmed;
  const termsByRequirement = requirements.map(reversedTerms);
  const annotated = sentences(trimmed)
    .map((sentence) => {
      const lower = sentence.toLowerCase();
      // The latest requirement that reverses the sentence wins; say which.
      let winner = -1;
      termsByRequirement.forEach((terms, index) => {
        if (terms.some((term) => lower.includes(term))) winner = index;
      });
      if (winner < 0) return sentence;
      const end = sentence.match(/\n+$/)?.[0] ?? '';
      const body = sentence.slice(0, sentence.length - end.length);
      return `${body}〔已由长期要求 ${winner + 1} 取代 / superseded by lasting requirement ${winner + 1}〕${end}`;
    })
    .join('');
  const list = requirements.map((text, index) => `${index + 1}. ${text.trim().replace(/\s*\n\s*/g, ' ')}`).join('\n');
  return `${annotated}\n\n${REQUIREMENTS_HEADING}\n${PRECEDENCE_NOTE}\n${list}`;
}
