import type { ChatRequest } from '@troupe/kernel';
import { readMessageFacts } from './message-facts.js';
import { type PlayerInput, readPlayerInput } from './player-input.js';
import { plainLines, readBlocks, stageBlock } from './prompt-blocks.js';
import { firstClause, listNames, withEndStop } from './story-text.js';
import { sentenceKey, splitSentences } from './text.js';

/** A director's beat as a section writer reads it. */
interface CharacterBeat {
  readonly name: string;
  /** What the character does, without the name ("转过身来"). */
  readonly act: string;
  /** What the character says ('' when nothing). */
  readonly dialogue: string;
}

interface SectionBrief {
  readonly kind: 'prose' | 'character' | 'history';
  readonly focus: string | undefined;
  readonly facts: readonly string[];
  readonly characters: readonly CharacterBeat[];
  readonly names: readonly string[];
  readonly reference: readonly string[];
  readonly input: PlayerInput;
}

const BACKGROUND_LABEL = /^(?:背景|事实|background|keep consistent|fact)$/iu;
const PLAYER_LABEL = /^(?:回应玩家|玩家|旅人|respond to the player|player)$/iu;

/**
 * Prose for a story section: two to four plain sentences (no headings, no prompt text) in the
 * player's language that follow the section's kind — the scene and a beat for the player's turn, never restating their words (prose),
 * the characters' reactions and lines from the director's plan (character), or a recap of public
 * facts (history) — naming the characters the plan brings in.
 * @param request - the `story/section` request
 * @returns the section text
 */
export function sectionProse(request: ChatRequest): string {
  const brief = readSectionBrief(request);
  const sentences =
    brief.kind === 'character' ? characterSentences(brief) : brief.kind === 'history' ? historySentences(brief) : sceneSentences(brief);
  return sentences.slice(0, 4).join(brief.input.chinese ? '' : ' ');
}

function readSectionBrief(request: ChatRequest): SectionBrief {
  const system = request.messages.find((message) => message.role === 'system')?.content ?? '';
  const kindMatch = /section \((prose|character|history)\)/.exec(system)?.[1] as SectionBrief['kind'] | undefined;
  const focusText = /Focus: (.+?)\. /.exec(system)?.[1];
  const focus = focusText && focusText !== 'all participants' ? focusText.replace(/\s*\([^)]*\)$/, '') : undefined;
  const blocks = readBlocks(request.messages);
  const facts: string[] = [];
  const characters: CharacterBeat[] = [];
  for (const line of (stageBlock(blocks, 'directorsPlan') ?? '').split('\n')) {
    const beat = /^\s*-\s+(.{1,24}?)\s*[：:]\s*(.+)$/u.exec(line);
    if (!beat) continue;
    const [, label, text] = beat as unknown as [string, string, string];
    if (BACKGROUND_LABEL.test(label)) facts.push(text.trim());
    else if (!PLAYER_LABEL.test(label)) characters.push(characterBeat(label.trim(), text));
  }
  const input = readPlayerInput(request.messages);
  const fromPlan = characters.map((beat) => beat.name);
  const names = fromPlan.length > 0 ? fromPlan : focus ? [focus] : readMessageFacts(request).names.slice(0, 3);
  return {
    kind: kindMatch ?? 'prose',
    focus,
    facts,
    characters: focus ? characters.filter((beat) => beat.name === focus) : characters,
    names: focus ? [focus] : names,
    reference: plainLines(stageBlock(blocks, 'sectionReference')),
    input,
  };
}

function characterBeat(name: string, text: string): CharacterBeat {
  const dialogue = /说[：:]\s*“([^”]*)”/u.exec(text)?.[1] ?? /says "([^"]*)"/.exec(text)?.[1] ?? '';
  let act = firstClause(text.replace(/[；;]\s*(?:说[：:]|says ").*$/u, ''));
  if (act.startsWith(name)) act = act.slice(name.length).trim();
  return { name, act, dialogue };
}

function sceneSentences(brief: SectionBrief): string[] {
  const { input, names } = brief;
  const zh = input.chinese;
  const sentences: string[] = [];
  const setting = brief.facts[0] ?? referenceSetting(brief.reference, zh);
  if (setting) sentences.push(withEndStop(setting, zh));
  sentences.push(playerLine(input));
  if (names.length > 0) {
    const list = listNames(names, zh);
    sentences.push(zh ? `${list}${names.length > 1 ? '都' : ''}转头看向你。` : `${list} ${names.length > 1 ? 'turn' : 'turns'} to look at you.`);
  } else if (sentences.length < 2) {
    sentences.push(zh ? '四下一片安静。' : 'Everything around is quiet.');
  }
  return sentences;
}

/**
 * The scene's beat for the player: it says that the player spoke (or asked, or kept silent) without
 * restating the player's words — a roleplay narrator answers the input, it never echoes it back
 * (the player's own line is already on screen right above the reply).
 */
function playerLine(input: PlayerInput): string {
  const zh = input.chinese;
  const spoke = input.speech !== '';
  if (zh) {
    if (!spoke) return '你没有说话。';
    return input.asks ? '你的问题落下，四周安静了一瞬。' : '你的话音落下。';
  }
  if (!spoke) return 'You stay silent.';
  return input.asks ? 'Your question hangs in the air for a moment.' : 'Your words settle over the scene.';
}

function characterSentences(brief: SectionBrief): string[] {
  const zh = brief.input.chinese;
  const sentences = brief.characters.slice(0, 3).map((beat) => {
    const act = beat.act || (zh ? '看着你' : 'looks at you');
    if (zh) return beat.dialogue ? `${beat.name}${act}：“${withEndStop(beat.dialogue, zh)}”` : `${beat.name}${act}，没有说话。`;
    return beat.dialogue ? `${beat.name} ${act}: "${withEndStop(beat.dialogue, zh)}"` : `${beat.name} ${act}, saying nothing.`;
  });
  if (sentences.length === 0) {
    const who = brief.names.length > 0 ? listNames(brief.names, zh) : zh ? '众人' : 'Everyone';
    sentences.push(zh ? `${who}听着你的话，一时没有作声。` : `${who} listen to you and say nothing for a moment.`);
  }
  if (sentences.length < 2) sentences.push(zh ? '一时间，谁也没有再开口。' : 'For a moment, nobody speaks.');
  return sentences;
}

function historySentences(brief: SectionBrief): string[] {
  const { input } = brief;
  const zh = input.chinese;
  const sentences = brief.facts.slice(0, 2).map((fact) => withEndStop(fact, zh));
  if (sentences.length === 0) sentences.push(zh ? '这是故事的开端。' : 'This is where the story begins.');
  // Ties the recap to this turn without quoting the player's words back at them.
  if (input.speech !== '') {
    if (zh) sentences.push(input.asks ? '而此刻，你的问题把这些旧事重新提了起来。' : '而此刻，你的话让这些旧事重新浮现。');
    else sentences.push(input.asks ? 'And now your question brings it all back.' : 'And now your words bring it all back.');
  }
  return sentences;
}

/** A setting sentence from a reference such as "描写此刻码头上的景象、雾和声音": "眼前是此刻码头上的景象、雾和声音。" */
function referenceSetting(reference: readonly string[], chinese: boolean): string | undefined {
  const line = reference[0];
  if (!line) return undefined;
  const object = chinese ? /(?:描写|描述|写出|写)([^，。；]{2,30})/u.exec(line)?.[1] : /\b(?:describe|show)\s+([^,.;]{3,60})/i.exec(line)?.[1];
  if (!object) return undefined;
  return chinese ? `眼前是${object}。` : `Before you: ${object}.`;
}

/**
 * The editor's pass: returns the `##` sections it received, in order and under their headings,
 * with sentences that repeat an earlier one removed (also across sections) and the layout cleaned
 * (heading spacing, trailing spaces, blank-line runs). Text without sections is edited the same way
 * and stays natural text.
 * @param request - the `story/editor` request
 * @returns the edited Markdown
 */
export function editorProse(request: ChatRequest): string {
  const users = request.messages.filter((message) => message.role === 'user');
  const withSections = [...users].reverse().find((message) => /^\s*##\s*\S/m.test(message.content));
  const source = withSections?.content ?? users[users.length - 1]?.content ?? '';
  const fromHeading = withSections ? source.slice(source.search(/^\s*##\s*\S/m)) : source;
  const seen = new Set<string>();
  return fromHeading
    .split('\n')
    .map((line) => line.replace(/\s+$/, '').replace(/^\s*##\s*(?=\S)/, '## '))
    .map((line) => (line.startsWith('## ') || line.trim() === '' ? line : withoutRepeats(line, seen)))
    .filter((line, index, lines) => line !== undefined && !(line === '' && lines[index - 1] === undefined))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The line without sentences already seen; undefined when nothing new is left. */
function withoutRepeats(line: string, seen: Set<string>): string | undefined {
  const kept: string[] = [];
  for (const sentence of splitSentences(line)) {
    const key = sentenceKey(sentence);
    if (key !== '' && seen.has(key)) continue;
    seen.add(key);
    kept.push(sentence);
  }
  if (kept.length === 0) return undefined;
  const chinese = /[\u3400-\u9fff]/u.test(line);
  return kept.join(chinese ? '' : ' ');
}
