import { readFileSync } from 'node:fs';
import { type ChatMessage, type NewSessionEvent, TURN_COMMITTED } from '@troupe/kernel';
import { AssemblerError, type PromptEntry } from '../src/index.js';
import { encodePng } from '../src/importers/png.js';

/** A complete DIO compiled character prompt, as the DIO service would deliver it. */
export const COMPILED = '你是莉娅，灯塔看守人。从现在起都用短句回答，少用比喻。';

/** The control instructions of {@link seedPrompts}. */
export const CONTROL = '控制说明：只写莉娅的台词与动作。';

/** The original character text of {@link seedPrompts}'s `roleplay` prompt. */
export const CHARACTER = '莉娅是灯塔看守人。';

/** Two earlier turns (the assistant one carries an extra `name` field that must survive). */
export function seedHistory(): ChatMessage[] {
  return [
    { role: 'user', content: '你好，莉娅。' },
    { role: 'assistant', content: '「进来吧。」', name: '莉娅' },
  ];
}

/** A prompt with defaults, for terse tests. */
export function prompt(identifier: string, content: string, extra: Partial<PromptEntry> = {}): PromptEntry {
  return { identifier, name: extra.name ?? identifier, role: 'system', content, ...extra };
}

/** Control instructions → character slot → history → input: the seed's example template. */
export function seedPrompts(characterPrompt: PromptEntry = prompt('character', CHARACTER, { name: 'roleplay' })): PromptEntry[] {
  return [
    prompt('control', CONTROL),
    characterPrompt,
    prompt('chatHistory', '', { marker: 'chatHistory' }),
    prompt('userInput', '', { marker: 'userInput', role: 'user' }),
  ];
}

/**
 * Runs `run` and returns the code of the {@link AssemblerError} it throws.
 * @throws the error itself when it is not an AssemblerError, or an Error when nothing was thrown
 */
export function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (AssemblerError.isInstance(error)) return error.code;
    throw error;
  }
  throw new Error('expected an AssemblerError');
}

/** Reads a committed file from `test/fixtures` as UTF-8 text. */
export function fixtureText(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
}

/** Reads a committed file from `test/fixtures` as bytes. */
export function fixtureBytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));
}

/** A minimal valid 1×1 PNG built from raw bytes: IHDR, `extra` chunks, IDAT (stored deflate), IEND. */
export function tinyPng(extra: { type: string; data: Uint8Array }[] = []): Uint8Array {
  const ihdr = Uint8Array.of(0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0);
  const idat = Uint8Array.of(0x78, 0x01, 0x01, 0x02, 0x00, 0xfd, 0xff, 0x00, 0x7f, 0x00, 0x80, 0x00, 0x80);
  return encodePng([{ type: 'IHDR', data: ihdr }, ...extra, { type: 'IDAT', data: idat }, { type: 'IEND', data: new Uint8Array() }]);
}

/** A JSON value as base64 of its UTF-8 text (how cards sit in PNG `chara`/`ccv3` chunks). */
export function base64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

/** `count` committed turns of a long Chinese chat (a session's history, to append to a log). */
export function committedTurns(count: number): NewSessionEvent[] {
  return Array.from({ length: count }, (_, index) => ({
    turnId: `t${index}`,
    step: 0,
    type: TURN_COMMITTED,
    ignorable: false,
    at: new Date(0).toISOString(),
    data: { input: `第${index}轮：莉娅，今晚雾港的码头上有船靠岸吗？`, reply: `「第${index}次回答：没有船。雾太浓了，灯塔的光照不到海面。」莉娅低声说。` },
  }));
}
