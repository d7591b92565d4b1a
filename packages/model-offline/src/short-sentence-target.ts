import type { ChatMessage } from '@troupe/kernel';

// A lasting requirement such as "从现在起莉娅都用短句回答" is about one character. The offline actor
// applies it only when it plays that character (or when the requirement names nobody), so in a
// scene with Marco and Lia, "Marco answers in short sentences" never makes Lia terse.

const SHORT_SENTENCES = /短句|简短|简洁|short sentences?|brief|concise|terse/i;
const DRAFT_TAG = /<story_draft>[\s\S]*?<\/story_draft>/g;
const CHINESE_SUBJECT = /(?:从现在起|从今以后|从今天起|以后|今后|往后)[，,\s]*([\p{Script=Han}A-Za-z·]{1,12}?)(?:都|要|请|也|就|只|说话|回答|用)/u;
const ENGLISH_SUBJECT = /(?:^|[Ff]rom now on[,\s]+|[Gg]oing forward[,\s]+|[Hh]enceforth[,\s]+|[-*]\s+)([A-Z][\p{L}'-]+(?: [A-Z][\p{L}'-]+)?)\s+(?:should|must|will|shall|always|only|answers?|speaks?|talks?|replies?|uses?|keeps?)\b/u;
const NOT_A_NAME = /^(?:you|i|he|she|they|we|it|answer|always|please|reply|speak|keep|use|from|lasting|requirement)$/i;
const CHINESE_NOT_A_NAME = /[用短句回答说话你我他她它们大家都]/u;

function requirementSentences(messages: readonly ChatMessage[]): string[] {
  return messages
    .filter((message) => message.role === 'system')
    .flatMap((message) => message.content.replace(DRAFT_TAG, '').split(/(?<=[。.!！?？])\s*|\n+/u))
    .filter((sentence) => SHORT_SENTENCES.test(sentence));
}

/**
 * Who a requirement sentence is about: the name before "都/要/用…" or "should/must/answers…".
 * @param sentence - one sentence of a system message
 * @returns the name, or `undefined` when it names nobody (a requirement for whoever is played)
 */
export function requirementSubject(sentence: string): string | undefined {
  const chinese = CHINESE_SUBJECT.exec(sentence)?.[1];
  if (chinese && !CHINESE_NOT_A_NAME.test(chinese)) return chinese;
  const english = ENGLISH_SUBJECT.exec(sentence.trim())?.[1];
  if (english && !NOT_A_NAME.test(english.split(' ')[0] ?? '')) return english;
  return undefined;
}

/**
 * Whether the system messages ask the played character for short sentences: a requirement that
 * names this character (any of its names) or nobody applies; one that names someone else does not.
 * @param messages - the actor request's messages
 * @param names - every name of the played character (e.g. `Lia` and `莉娅`); empty when unknown
 * @returns true when the reply must use short sentences
 */
export function shortSentencesAskedOf(messages: readonly ChatMessage[], names: readonly string[]): boolean {
  const own = names.map((name) => name.toLowerCase()).filter((name) => name !== '');
  return requirementSentences(messages).some((sentence) => {
    const subject = requirementSubject(sentence)?.toLowerCase();
    if (subject === undefined || own.length === 0) return true;
    return own.some((name) => subject.includes(name) || name.includes(subject));
  });
}

/**
 * The played character's other names: a parenthesised alias right after its name in a system
 * message (`Lia（莉娅）`, `Lin Mo (林默)`).
 * @param messages - the request's messages
 * @param name - the character's name
 * @returns the name and its aliases
 */
export function characterAliases(messages: readonly ChatMessage[], name: string | undefined): string[] {
  if (!name) return [];
  const names = [name];
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`${escaped}\\s*[（(]([^）)]{1,24})[）)]`, 'u');
  for (const message of messages) {
    if (message.role !== 'system') continue;
    const alias = pattern.exec(message.content)?.[1]?.trim();
    if (alias && !names.includes(alias)) names.push(alias);
  }
  return names;
}
