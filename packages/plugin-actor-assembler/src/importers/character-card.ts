import { formatIssues } from '@troupe/kernel';
import { AssemblerError } from '../errors.js';
import type { MacroFields } from '../macros.js';
import { type Preset, type PromptEntry, type PromptRole, defaultPreset } from '../preset.js';
import { type RegexScript, readRegexScripts } from '../regex/regex-script.js';
import { applyCardLeniency } from './card-leniency.js';
import { type CardV2, CardV2Schema, type CardV3, CardV3Schema } from './card-schema.js';
import { toCardV2Backfill } from './card-v2-backfill.js';
import { type CharxContents, isZip, readCharx } from './charx.js';
import { type PngLimits, isPng, readPngTextChunks, setPngTextChunks } from './png.js';

/**
 * Largest JSON card accepted (characters / bytes): as large as a card file may be (a PNG card's
 * cap), since lorebook-heavy cards keep megabytes of entries in their JSON.
 */
export const MAX_CARD_JSON_BYTES = 20 * 1024 * 1024;
/** Identifier of the card's quarantined `system_prompt` prompt. */
export const CARD_SYSTEM_PROMPT_ID = 'cardSystemPrompt';
/** Identifier of the card's quarantined `post_history_instructions` prompt. */
export const CARD_POST_HISTORY_ID = 'cardPostHistoryInstructions';

/** The character fields an app uses (names in camelCase; nothing is dropped from `source`). */
export interface ImportedCharacter {
  readonly name: string;
  /** What `{{char}}` becomes: the V3 `nickname` when set, else `name`. */
  readonly displayName: string;
  readonly description: string;
  readonly personality: string;
  readonly scenario: string;
  readonly firstMessage: string;
  readonly alternateGreetings: readonly string[];
  readonly groupOnlyGreetings: readonly string[];
  readonly exampleMessages: string;
  readonly creatorNotes: string;
  readonly tags: readonly string[];
  readonly creator: string;
  readonly characterVersion: string;
  readonly extensions: Readonly<Record<string, unknown>>;
  readonly characterBook: Readonly<Record<string, unknown>> | undefined;
  /** The card's `system_prompt` (`{{charPrompt}}`). */
  readonly systemPrompt: string;
  /** The card's `post_history_instructions` (`{{charInstruction}}`). */
  readonly postHistoryInstructions: string;
  /** `extensions.depth_prompt`: an in-chat injection at its depth (undefined when empty). */
  readonly depthPrompt: { readonly prompt: string; readonly depth: number; readonly role: PromptRole } | undefined;
  /** `extensions.regex_scripts`, the valid ones (see `warnings` for the others). */
  readonly regexScripts: readonly RegexScript[];
}

/** What a card import returns. */
export interface CharacterCardImport {
  readonly spec: 'chara_card_v2' | 'chara_card_v3';
  readonly specVersion: string;
  readonly character: ImportedCharacter;
  /** The card's prompt overrides, quarantined: also present in `preset` as disabled prompts. */
  readonly cardPrompts: { readonly systemPrompt: string; readonly postHistoryInstructions: string };
  /**
   * A working preset for this character. The card's `system_prompt` (which replaces the main
   * prompt; `{{original}}` inside is the main prompt's text) and `post_history_instructions` are
   * enabled, as the V2 spec asks, unless imported with `useCardPrompts: false`.
   */
  readonly preset: Preset;
  /** What the card holds that could not be used, in words. */
  readonly warnings: readonly string[];
  /** The validated card with every unknown field kept, for lossless re-export. */
  readonly source: CardV2 | CardV3;
  /** Which PNG chunk the card came from, if any. */
  readonly pngChunk: 'ccv3' | 'chara' | undefined;
  /** The container the card came in. */
  readonly format: 'json' | 'png' | 'charx';
  /** What the import forgave, in words (a V1 upgrade, `null` fields, a numeric `spec_version`). */
  readonly notes: readonly string[];
  /** A CHARX card's main icon (PNG/JPEG/WebP bytes), when the archive has one. */
  readonly icon: Uint8Array | undefined;
}

interface ValidatedCard {
  readonly card: CardV2 | CardV3;
  readonly notes: readonly string[];
}

function parseJsonText(text: string): unknown {
  if (text.length > MAX_CARD_JSON_BYTES) throw new AssemblerError('IMPORT_TOO_LARGE', `Card JSON is ${text.length} characters; the limit is ${MAX_CARD_JSON_BYTES}`, { details: { size: text.length } });
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (cause) {
    throw new AssemblerError('IMPORT_JSON_INVALID', `Card is not valid JSON: ${(cause as Error).message}`, { cause });
  }
}

function validateCard(input: unknown): ValidatedCard {
  const { value, notes } = applyCardLeniency(input);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AssemblerError('IMPORT_CARD_INVALID', `A character card is a JSON object; this is ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}`);
  }
  const spec = (value as { spec?: unknown }).spec;
  if (spec !== 'chara_card_v2' && spec !== 'chara_card_v3') {
    throw new AssemblerError(
      'IMPORT_CARD_UNSUPPORTED',
      spec === undefined
        ? 'Not a character card: no "spec" field and no V1 fields (a string "name" with "description", "personality", "first_mes", …)'
        : `Unsupported card spec ${JSON.stringify(spec)}; expected "chara_card_v2" or "chara_card_v3"`,
      { details: { spec } },
    );
  }
  const result = (spec === 'chara_card_v3' ? CardV3Schema : CardV2Schema).safeParse(value);
  if (!result.success) throw new AssemblerError('IMPORT_CARD_INVALID', `Invalid ${spec} card: ${formatIssues(result.error)}`);
  return { card: result.data, notes };
}

/** Options of {@link importCharacterCard}. */
export interface CharacterCardImportOptions {
  /**
   * Use the card's `system_prompt` and `post_history_instructions` (default true). With false they
   * are still imported, as disabled prompts an app can switch on.
   */
  readonly useCardPrompts?: boolean;
}

function presetFor(data: CardV2['data'], useCardPrompts: boolean): Preset {
  const base = defaultPreset();
  const prompts: PromptEntry[] = [];
  for (const prompt of base.prompts) {
    if (prompt.identifier === 'main' && data.system_prompt.trim() !== '') {
      // SillyTavern: the card's system prompt replaces the main prompt; {{original}} is the main prompt.
      const content = data.system_prompt.replace(/\{\{original\}\}/gi, () => prompt.content);
      prompts.push({ ...prompt, enabled: !useCardPrompts }, { identifier: CARD_SYSTEM_PROMPT_ID, name: 'Card system prompt', role: 'system', content, enabled: useCardPrompts });
      continue;
    }
    prompts.push(prompt);
    if (prompt.marker === 'userInput' && data.post_history_instructions.trim() !== '') {
      const content = data.post_history_instructions.replace(/\{\{original\}\}/gi, '');
      prompts.push({ identifier: CARD_POST_HISTORY_ID, name: 'Card post-history instructions', role: 'system', content, enabled: useCardPrompts });
    }
  }
  return { name: `${data.name} (imported card)`, prompts };
}

type CardOrigin = Pick<CharacterCardImport, 'pngChunk' | 'format' | 'icon'>;

const DEPTH_ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant']);

function depthPromptOf(extensions: Readonly<Record<string, unknown>>, warnings: string[]): ImportedCharacter['depthPrompt'] {
  const raw = extensions['depth_prompt'];
  if (raw === undefined || raw === null) return undefined;
  const value = raw as { prompt?: unknown; depth?: unknown; role?: unknown };
  if (typeof value !== 'object' || typeof value.prompt !== 'string') {
    warnings.push('extensions.depth_prompt is malformed; not used');
    return undefined;
  }
  if (value.prompt.trim() === '') return undefined;
  const depth = typeof value.depth === 'number' && Number.isFinite(value.depth) ? Math.min(10_000, Math.max(0, Math.trunc(value.depth))) : 4;
  const role = typeof value.role === 'string' && DEPTH_ROLES.has(value.role) ? (value.role as PromptRole) : 'system';
  return { prompt: value.prompt, depth, role };
}

function fromCard({ card, notes }: ValidatedCard, origin: CardOrigin, options: CharacterCardImportOptions = {}): CharacterCardImport {
  const data = card.data;
  const warnings: string[] = [];
  const depthPrompt = depthPromptOf(data.extensions, warnings);
  const regex = readRegexScripts(data.extensions['regex_scripts'], 'Card');
  warnings.push(...regex.warnings);
  const nickname = 'nickname' in data && typeof data.nickname === 'string' && data.nickname !== '' ? data.nickname : undefined;
  const character: ImportedCharacter = {
    name: data.name,
    displayName: nickname ?? data.name,
    description: data.description,
    personality: data.personality,
    scenario: data.scenario,
    firstMessage: data.first_mes,
    alternateGreetings: data.alternate_greetings,
    groupOnlyGreetings: 'group_only_greetings' in data ? (data.group_only_greetings as string[]) : [],
    exampleMessages: data.mes_example,
    creatorNotes: data.creator_notes,
    tags: data.tags,
    creator: data.creator,
    characterVersion: data.character_version,
    extensions: data.extensions,
    characterBook: data.character_book,
    systemPrompt: data.system_prompt,
    postHistoryInstructions: data.post_history_instructions,
    depthPrompt,
    regexScripts: regex.scripts,
  };
  return {
    spec: card.spec,
    specVersion: card.spec_version,
    character,
    cardPrompts: { systemPrompt: data.system_prompt, postHistoryInstructions: data.post_history_instructions },
    preset: presetFor(data, options.useCardPrompts ?? true),
    warnings,
    source: card,
    ...origin,
    notes,
  };
}

// The V3 spec: the main icon is the `icon` asset named `main`, else the first icon.
function charxIcon(card: CardV2 | CardV3, archive: CharxContents): Uint8Array | undefined {
  const assets = 'assets' in card.data && Array.isArray(card.data.assets) ? card.data.assets : [];
  const icons = assets.filter((asset) => asset.type === 'icon');
  const main = icons.find((asset) => asset.name === 'main') ?? icons[0];
  return main === undefined ? undefined : archive.readAsset(main.uri);
}

function fromCharx(bytes: Uint8Array, options: CharacterCardImportOptions): CharacterCardImport {
  const archive = readCharx(bytes);
  const validated = validateCard(parseJsonText(archive.cardJson));
  return fromCard(validated, { pngChunk: undefined, format: 'charx', icon: charxIcon(validated.card, archive) }, options);
}

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

function decodeChunk(keyword: 'ccv3' | 'chara', text: string): unknown {
  if (!BASE64.test(text)) throw new AssemblerError('IMPORT_CARD_INVALID', `PNG chunk "${keyword}" is not base64`);
  try {
    return JSON.parse(Buffer.from(text, 'base64').toString('utf8'));
  } catch (cause) {
    throw new AssemblerError('IMPORT_JSON_INVALID', `PNG chunk "${keyword}" does not hold valid JSON`, { details: { chunk: keyword }, cause });
  }
}

/**
 * Imports a character card from a PNG (the `ccv3` chunk preferred over `chara`), a CHARX (ZIP)
 * archive, JSON text, or an already-parsed object. V1 cards are upgraded to V2, `null` optional
 * fields read as absent and a numeric `spec_version` as its text (see `notes`).
 * @param input - PNG or CHARX bytes, JSON text, or a parsed object
 * @param limits - PNG size caps
 * @param options - `useCardPrompts: false` to keep the card's own prompts off
 * @returns character fields, a preset (the card's prompts on by default), warnings, and the verbatim source
 * @throws {AssemblerError} IMPORT_TOO_LARGE, IMPORT_JSON_INVALID, IMPORT_CARD_INVALID,
 *   IMPORT_CARD_UNSUPPORTED, IMPORT_CHARX_INVALID, PNG_INVALID, PNG_CRC_MISMATCH, PNG_NO_CARD
 */
export function importCharacterCard(input: Uint8Array | string | object, limits: PngLimits = {}, options: CharacterCardImportOptions = {}): CharacterCardImport {
  const plain: CardOrigin = { pngChunk: undefined, format: 'json', icon: undefined };
  if (input instanceof Uint8Array) {
    if (input.length > (limits.maxFileBytes ?? 20 * 1024 * 1024)) throw new AssemblerError('IMPORT_TOO_LARGE', `Card file is ${input.length} bytes; the limit is ${limits.maxFileBytes ?? 20 * 1024 * 1024}`, { details: { size: input.length } });
    if (isZip(input)) return fromCharx(input, options);
    if (!isPng(input)) {
      // Check the byte size before decoding, so a huge non-PNG file is never turned into a string.
      if (input.length > MAX_CARD_JSON_BYTES) throw new AssemblerError('IMPORT_TOO_LARGE', `Card file is ${input.length} bytes; a JSON card may have at most ${MAX_CARD_JSON_BYTES}`, { details: { size: input.length } });
      return fromCard(validateCard(parseJsonText(Buffer.from(input).toString('utf8'))), plain, options);
    }
    const texts = readPngTextChunks(input, limits);
    // The V3 spec: "If the application detects both chara and ccv3 chunk, it SHOULD use ccv3."
    const keyword = texts.has('ccv3') ? 'ccv3' : texts.has('chara') ? 'chara' : undefined;
    if (keyword === undefined) throw new AssemblerError('PNG_NO_CARD', 'PNG has no "ccv3" or "chara" text chunk: not a character card');
    return fromCard(validateCard(decodeChunk(keyword, texts.get(keyword) ?? '')), { pngChunk: keyword, format: 'png', icon: undefined }, options);
  }
  return fromCard(validateCard(typeof input === 'string' ? parseJsonText(input) : input), plain, options);
}

/**
 * The macro fields (`{{description}}`, …) of an imported character, for {@link assemble}.
 * @param character - an imported character
 * @param persona - the player's persona text for `{{persona}}`
 * @returns macro fields
 */
export function characterMacroFields(character: ImportedCharacter, persona?: string): MacroFields {
  return {
    description: character.description,
    personality: character.personality,
    scenario: character.scenario,
    mesExamples: character.exampleMessages,
    charPrompt: character.systemPrompt,
    charInstruction: character.postHistoryInstructions,
    charDepthPrompt: character.depthPrompt?.prompt ?? '',
    charVersion: character.characterVersion,
    creatorNotes: character.creatorNotes,
    ...(persona !== undefined ? { persona } : {}),
  };
}

/**
 * Writes a card into a PNG: `ccv3` always for V3 cards, plus a `chara` backfill (V2 shape, with
 * the card's top-level fields and the V1 fields from `data`, as SillyTavern writes it); a V2 card
 * is written as `chara` only.
 * @param png - the image
 * @param card - the card (e.g. `import.source`)
 * @param limits - size caps for reading the image
 * @returns the new PNG bytes
 * @throws {AssemblerError} as reading the PNG
 */
export function embedCharacterCard(png: Uint8Array, card: CardV2 | CardV3, limits: PngLimits = {}): Uint8Array {
  const encode = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
  if (card.spec === 'chara_card_v2') return setPngTextChunks(png, { chara: encode(card) }, limits);
  return setPngTextChunks(png, { chara: encode(toCardV2Backfill(card)), ccv3: encode(card) }, limits);
}
