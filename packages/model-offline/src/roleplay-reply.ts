import { hashText } from './hash.js';
import type { PlayerInput } from './player-input.js';
import { CHINESE_LINES, ENGLISH_LINES, inputKind, type Phrasebook } from './roleplay-lines.js';
import { snippet, stripEndPunctuation } from './text.js';

/** What the offline actor writes a reply from. */
export interface RoleplayContext {
  /** The character played (`undefined`: speak without a name). */
  readonly name: string | undefined;
  readonly input: PlayerInput;
  /** Whether the reply must be in short sentences (a requirement aimed at this character). */
  readonly short: boolean;
  /** The first line of a story draft to lean on, if any. */
  readonly draftLine: string;
  /** How many messages came before (so the same line in a new turn can get a new answer). */
  readonly turn: number;
}

function pick<T>(items: readonly T[], seed: number, salt: number): T {
  return items[hashText(String(salt), seed) % items.length] as T;
}

/**
 * An in-character reply: a line of narration in asterisks (reacting to the player's stage
 * direction, never repeating it), then the character's spoken answer to the kind of thing the
 * player said, in quotes — without echoing the player's words. A story draft's first line is told
 * as narration. In short-sentence form only one short spoken sentence remains.
 * @param context - name, the player's input, short-sentence flag, draft line, turn index
 * @returns the reply text
 */
export function roleplayReply(context: RoleplayContext): string {
  const { input } = context;
  const chinese = input.chinese;
  const lines: Phrasebook = chinese ? CHINESE_LINES : ENGLISH_LINES;
  const seed = hashText(`${input.text}\u0000${context.turn}`);
  const name = context.name;
  const fill = (line: string) => line.replaceAll('{name}', name ?? (chinese ? '无名之人' : 'nobody you would know'));
  const kind = inputKind(input.speech, chinese, input.asks);
  const answer = fill(pick(lines.answers[kind], seed, 1));
  const openers = name === undefined ? lines.namelessActions : input.direction ? lines.reactions : lines.actions;
  const opener = fill(pick(openers, seed, 2));
  const [open, close] = chinese ? ['“', '”'] : ['"', '"'];
  const draft = context.draftLine;
  if (context.short) {
    const spoken = /^.*?[。！？!?]|^.*?\.(?=\s|$)/u.exec(answer)?.[0] ?? answer;
    const action = name === undefined ? (chinese ? '点头。' : 'A nod.') : chinese ? `${name}点头。` : `${name} nods.`;
    const told = draft ? (chinese ? `${snippet(stripEndPunctuation(draft), 12)}。` : `${snippet(stripEndPunctuation(draft), 40)}.`) : '';
    const gap = chinese ? '' : ' ';
    return `*${action}*${told ? `${gap}*${told}*` : ''}${gap}${open}${spoken}${close}`;
  }
  const narration = draft ? `*${opener}* *${stripEndPunctuation(draft)}${chinese ? '。' : '.'}*` : `*${opener}*`;
  const closer = kind === 'statement' || kind === 'greeting' ? '' : ` ${fill(pick(lines.closers, seed, 3))}`;
  return chinese ? `${narration}${open}${answer}${closer.trim()}${close}` : `${narration} ${open}${answer}${closer}${close}`;
}
