import type { ChatRole } from '@troupe/kernel';
import type { ActivatedEventData, ActivatedEventEntry, SkippedEntry } from '@troupe/plugin-lorebook';
import type { FiredLoreEntry, LoreActivation, LoreSkippedEntry } from '../wire/lore.js';
import type { PromptRole } from '../wire/prompt.js';

// The wire types (src/wire) are written out by hand because the browser UI cannot import the
// packages' types (its program has no Node types). Where a wire type repeats a package's own
// type, this file makes the two the same type at compile time: when a package changes its shape,
// `tsc -b` fails here instead of the browser misreading the JSON. Nothing here runs.

/** `true` when `A` and `B` are the same type (readonly and optional modifiers included), else `false`. */
export type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

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
