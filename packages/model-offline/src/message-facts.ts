import type { ChatMessage, ChatRequest } from '@troupe/kernel';
import { isCjk } from './text.js';

/** What the offline stages read out of a request's messages. */
export interface MessageFacts {
  /** Content of the last `user` message ('' when there is none). */
  readonly lastUserText: string;
  /** The character the model is asked to play, from "You are X" / "你是X" / a name line. */
  readonly characterName: string | undefined;
  /** Every distinct name found in the messages (character lines and `name` fields), in order. */
  readonly names: readonly string[];
  /** True when a system message asks for short sentences ("短句", "short sentences", …). */
  readonly wantsShortSentences: boolean;
  /** A story draft handed to the actor as a system message, when there is one. */
  readonly storyDraft: string | undefined;
  /** True when the draft came in a `<story_draft>` block, to be delivered as the reply. */
  readonly draftTagged: boolean;
  /** True when the reply should be Chinese (the player's last input contains CJK text). */
  readonly chinese: boolean;
  /** True when a `tool` message follows the last `user` message. */
  readonly answeredByTool: boolean;
}

const NAME_PATTERNS: readonly RegExp[] = [
  // SillyTavern's main prompt (and Troupe's chat preset): "Write Seraphina's next reply …".
  /\bWrite ([^\s'’{}][^'’\n{}]{0,40}?)['’]s next reply/u,
  /\bYou are ([A-Z][\p{L}'-]*(?: [A-Z][\p{L}'-]*){0,2})/u,
  /你(?:是|扮演)(?!一|个|谁|这|那|我|你|他|她)([\p{Script=Han}A-Za-z·]{1,8}?)(?:[，,。.！!；;：:\s（(]|$)/u,
  /^\s*(?:Name|Character|名字|姓名|角色)\s*[:：]\s*(.{1,40}?)\s*$/imu,
];

const SHORT_SENTENCES = /短句|简短|简洁|short sentences?|brief|concise|terse/i;
const DRAFT_LABEL = /story draft|故事草稿|草稿/i;
const MARKDOWN_SECTION = /^\s*##\s+\S/m;
const DRAFT_TAG = /<story_draft>\n?([\s\S]*?)\n?<\/story_draft>/;

/**
 * The body of a `<story_draft>…</story_draft>` block (how the actor assembler hands the draft
 * over), trimmed; undefined when `text` has none.
 * @param text - a message's content
 */
export function taggedDraft(text: string): string | undefined {
  const body = DRAFT_TAG.exec(text)?.[1]?.trim();
  return body || undefined;
}

/**
 * Extracts the facts the offline stages use from the request's messages.
 * @param request - the chat request
 * @returns the facts; fields are `undefined`/empty when nothing matched
 */
export function readMessageFacts(request: Pick<ChatRequest, 'messages'>): MessageFacts {
  const messages = request.messages;
  const lastUserIndex = findLastIndex(messages, (message) => message.role === 'user');
  const lastUserText = lastUserIndex >= 0 ? (messages[lastUserIndex]?.content ?? '') : '';
  const systems = messages.filter((message) => message.role === 'system');
  const names = collectNames(messages);
  const characterName = systems.map((message) => nameIn(message.content)).find((name) => name !== undefined);
  // A <story_draft> block wins, then a labelled draft, then a sectioned system message that is not
  // the character sheet.
  const tagged = systems.map((message) => taggedDraft(message.content)).find((body) => body !== undefined);
  const draft =
    tagged ??
    (
      systems.find((message) => DRAFT_LABEL.test(message.content)) ??
      systems.find((message) => MARKDOWN_SECTION.test(message.content) && nameIn(message.content) === undefined)
    )?.content;
  // The draft's own story text never counts as an instruction (a story may mention "brief").
  const instructions = systems.map((message) => message.content.replace(DRAFT_TAG, ''));
  return {
    lastUserText,
    characterName,
    names,
    wantsShortSentences: instructions.some((content) => SHORT_SENTENCES.test(content)),
    storyDraft: draft,
    draftTagged: tagged !== undefined,
    chinese: isCjk(lastUserText),
    answeredByTool: messages.slice(lastUserIndex + 1).some((message) => message.role === 'tool'),
  };
}

/**
 * The first character name stated in `text`, if any.
 * @param text - a message's content
 */
export function nameIn(text: string): string | undefined {
  for (const pattern of NAME_PATTERNS) {
    const found = pattern.exec(text)?.[1]?.trim();
    if (found) return found;
  }
  return undefined;
}

function collectNames(messages: readonly ChatMessage[]): string[] {
  const names: string[] = [];
  const add = (name: string | undefined) => {
    if (name && !names.includes(name)) names.push(name);
  };
  for (const message of messages) {
    add(message.name);
    for (const pattern of NAME_PATTERNS) {
      const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
      for (const match of message.content.matchAll(global)) add(match[1]?.trim());
    }
  }
  return names;
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index--) if (predicate(items[index] as T)) return index;
  return -1;
}
