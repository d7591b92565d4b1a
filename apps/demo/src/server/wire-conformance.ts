import type { ChatRole, CommittedTurnRecord } from '@troupe/kernel';
import type { ActivatedEventData, ActivatedEventEntry, SkippedEntry } from '@troupe/plugin-lorebook';
import type { CharacterEntry, PipelineSettings, SectionEntry, SourceEntry, StoryManifest } from '@troupe/plugin-story';
import type { ForkOutcome } from '@troupe/plugin-dio';
import type { BranchDioOutcome, ChatExchange } from '../wire/chat.js';
import type { FiredLoreEntry, LoreActivation, LoreSkippedEntry } from '../wire/lore.js';
import type { PromptRole } from '../wire/prompt.js';
import type * as Wire from '../wire/story.js';
import type { TurnResultView as WireTurnResultView } from '../wire/turn-stream.js';
import type { TurnResultView } from './turn-stream.js';

// The wire types (src/wire) are written out by hand because the browser UI cannot import the
// packages' types (its program has no Node types). Where a wire type repeats a package's own
// type, this file ties the two together at compile time: when a package changes its shape,
// `tsc -b` fails here instead of the browser misreading the JSON. Nothing here runs.

/** `true` when `A` and `B` are the same type (readonly and optional modifiers included), else `false`. */
export type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/**
 * `true` when what the server sends (`Sent`) is what the browser reads (`Read`): assignable to
 * it, with the same field names (so a field added or dropped on either side is noticed too).
 * For zod-derived package types, whose fields and arrays are mutable where the wire's are readonly.
 */
export type Fits<Sent, Read> = [Sent] extends [Read] ? Equals<keyof Sent, keyof Read> : false;

/** Compiles only when `T` is `true`. */
export type Assert<T extends true> = T;

/** A fired entry of `GET /api/sessions/:id/lore` is plugin-lorebook's `lorebook/activated` entry. */
export type FiredLoreEntryConforms = Assert<Equals<FiredLoreEntry, ActivatedEventEntry>>;
/** A turn's activation is plugin-lorebook's `lorebook/activated` payload. */
export type LoreActivationConforms = Assert<Equals<LoreActivation, ActivatedEventData>>;
/** A lorebook's skipped entry is plugin-lorebook's `SkippedEntry`. */
export type LoreSkippedEntryConforms = Assert<Equals<LoreSkippedEntry, SkippedEntry>>;
/** A prompt block's role is the kernel's `ChatRole`. */
export type PromptRoleConforms = Assert<Equals<PromptRole, ChatRole>>;
/** An exchange of `GET /api/sessions/:id/messages` is the kernel's committed turn. */
export type ChatExchangeConforms = Assert<Equals<ChatExchange, CommittedTurnRecord>>;
/** A branch's DIO outcome is plugin-dio's `ForkOutcome`. */
export type BranchDioOutcomeConforms = Assert<Equals<BranchDioOutcome, ForkOutcome>>;
/** The turn stream's `result` is what the browser reads. */
export type TurnResultConforms = Assert<Fits<TurnResultView, WireTurnResultView>>;
/** The manifest entries are plugin-story's. */
export type CharacterEntryConforms = Assert<Fits<CharacterEntry, Wire.CharacterEntry>>;
export type SectionEntryConforms = Assert<Fits<SectionEntry, Wire.SectionEntry>>;
export type SourceEntryConforms = Assert<Fits<SourceEntry, Wire.SourceEntry>>;
export type PipelineSettingsConforms = Assert<Fits<PipelineSettings, Wire.PipelineSettings>>;
/** The manifest is plugin-story's (which also keeps unknown top-level fields, so only assignability is checked). */
export type StoryManifestConforms = Assert<[StoryManifest] extends [Wire.StoryManifest] ? true : false>;
