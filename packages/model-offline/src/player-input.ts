import type { ChatMessage } from '@troupe/kernel';
import { readBlocks, stageBlock } from './prompt-blocks.js';
import { isCjk, stripEndPunctuation } from './text.js';

/** The player's input as a story stage reads it. */
export interface PlayerInput {
  /** The whole input, trimmed ('' when there is none). */
  readonly text: string;
  /** A leading stage direction in brackets ("（夜雾中走上码头）" → "夜雾中走上码头"), when present. */
  readonly direction: string | undefined;
  /** What the player says, without the stage direction. */
  readonly speech: string;
  /** The last clause of the speech without end punctuation: a short topic to refer back to. */
  readonly topic: string;
  /** True when the speech is a question. */
  readonly asks: boolean;
  /** True when the input is Chinese (contains CJK text). */
  readonly chinese: boolean;
}

/**
 * Reads the player's input: the `## Player input` block when the request has one, otherwise the
 * last user message as a whole (plain chat requests).
 * @param messages - the request's messages
 * @returns the input, split into stage direction, speech and topic
 */
export function readPlayerInput(messages: readonly ChatMessage[]): PlayerInput {
  const block = stageBlock(readBlocks(messages), 'playerInput');
  return splitPlayerInput(block ?? lastUserText(messages));
}

/**
 * Splits raw input into stage direction and speech.
 * @param raw - the player's input
 */
export function splitPlayerInput(raw: string): PlayerInput {
  const text = raw.trim();
  const bracket = /^[（(]([^）)]{1,60})[）)]\s*/u.exec(text) ?? /^\*([^*]{1,60})\*\s*/u.exec(text);
  const direction = bracket?.[1]?.trim() || undefined;
  const speech = bracket ? text.slice(bracket[0].length).trim() : text;
  const clauses = speech.split(/[。！？!?.，,；;]+/u).map((part) => part.trim()).filter((part) => part !== '');
  const topic = stripEndPunctuation(clauses[clauses.length - 1] ?? '');
  return { text, direction, speech, topic, asks: /[?？]\s*$/u.test(speech), chinese: isCjk(text) };
}

/**
 * Content of the last `user` message ('' when there is none).
 * @param messages - the request's messages
 */
export function lastUserText(messages: readonly ChatMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === 'user') return message.content;
  }
  return '';
}
