import { formatIssues } from '@troupe/kernel';
import { formatIssuePath } from '@troupe/kernel/util';
import * as z from 'zod';
import { StoryError } from '../errors.js';

/** Ids of characters, sections and sources: they become path segments, so they follow the store's allowlist. */
export const STORY_ITEM_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const itemId = z.string().regex(STORY_ITEM_ID_PATTERN, 'must be 1–64 of a-z, 0-9, "_" and "-", starting with a letter or digit');

/** A character of the story. Only enabled characters take part in a turn. */
export const CharacterEntrySchema = z.object({
  id: itemId,
  name: z.string().min(1).max(200),
  enabled: z.boolean().default(true),
});

/** A Markdown reference source (`sources/<id>.md`). Only enabled sources are retrieved from. */
export const SourceEntrySchema = z.object({
  id: itemId,
  title: z.string().min(1).max(200),
  enabled: z.boolean().default(true),
});

/** A section of the story text: `prose`, `character` (one character or all participants) or `history`. */
export const SectionEntrySchema = z.object({
  id: itemId,
  title: z.string().min(1).max(200),
  kind: z.enum(['prose', 'character', 'history']),
  order: z.number().int(),
  enabled: z.boolean().default(true),
  /** The focused character's id, or `null` for "all participants". */
  focus: itemId.nullable().default(null),
});

/** Default of `pipeline.deadlineMs`: the whole story preparation (4 minutes, well under the kernel's 10-minute preActor timeout). */
export const DEFAULT_PREPARATION_DEADLINE_MS = 240_000;
/** Default of `pipeline.stageTimeoutMs`: one stage's model call (90 s). */
export const DEFAULT_STAGE_TIMEOUT_MS = 90_000;

/** Pipeline settings: parallelism (1–8, default 4), time limits and an optional model of its own. */
export const PipelineSettingsSchema = z.object({
  maxParallel: z.number().int().min(1).max(8).default(4),
  /**
   * The whole preparation's deadline (ms). When it passes, in-flight stage calls are aborted
   * (each records a failed result) and the turn goes on with what degraded, or the plain flow.
   */
  deadlineMs: z.number().int().min(1_000).max(3_600_000).default(DEFAULT_PREPARATION_DEADLINE_MS),
  /** The longest one stage's model call may take (ms), inside the deadline. */
  stageTimeoutMs: z.number().int().min(1_000).max(3_600_000).default(DEFAULT_STAGE_TIMEOUT_MS),
  provider: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  /** Use the plugin's web search provider when one is configured (default true). */
  webSearch: z.boolean().default(true),
});

/** Schema of `manifest.json`. Unknown top-level fields are kept (they belong to the player). */
export const StoryManifestSchema = z
  .looseObject({
    name: z.string().min(1).max(200),
    /** Owned by the tree store: always equal to the workspace revision. */
    revision: z.number().int().min(0).optional(),
    characters: z.array(CharacterEntrySchema).default([]),
    sources: z.array(SourceEntrySchema).default([]),
    sections: z.array(SectionEntrySchema).default([]),
    pipeline: PipelineSettingsSchema.default({ maxParallel: 4, webSearch: true, deadlineMs: DEFAULT_PREPARATION_DEADLINE_MS, stageTimeoutMs: DEFAULT_STAGE_TIMEOUT_MS }),
  })
  .superRefine((manifest, ctx) => {
    for (const list of ['characters', 'sources', 'sections'] as const) {
      const seen = new Set<string>();
      manifest[list].forEach((entry, index) => {
        if (seen.has(entry.id)) ctx.addIssue({ code: 'custom', path: [list, index, 'id'], message: `duplicate id "${entry.id}"` });
        seen.add(entry.id);
      });
    }
    const characterIds = new Set(manifest.characters.map((c) => c.id));
    manifest.sections.forEach((section, index) => {
      if (section.focus !== null && !characterIds.has(section.focus)) {
        ctx.addIssue({ code: 'custom', path: ['sections', index, 'focus'], message: `names unknown character "${section.focus}"` });
      }
    });
  });

/** A validated manifest. */
export type StoryManifest = z.output<typeof StoryManifestSchema>;
/** Manifest input as a caller may write it (defaults filled in on parse). */
export type StoryManifestInput = z.input<typeof StoryManifestSchema>;
/** A character entry. */
export type CharacterEntry = z.output<typeof CharacterEntrySchema>;
/** A source entry. */
export type SourceEntry = z.output<typeof SourceEntrySchema>;
/** A section entry. */
export type SectionEntry = z.output<typeof SectionEntrySchema>;
/** Pipeline settings. */
export type PipelineSettings = z.output<typeof PipelineSettingsSchema>;

/**
 * Validates a manifest object.
 * @param value - parsed JSON
 * @returns the manifest with defaults applied
 * @throws {StoryError} STORY_MANIFEST_INVALID naming the first bad field (all issues in the message)
 */
export function validateManifest(value: unknown): StoryManifest {
  const parsed = StoryManifestSchema.safeParse(value);
  if (parsed.success) return parsed.data;
    const field = formatIssuePath(parsed.error.issues[0]?.path, 'manifest');
  throw new StoryError('STORY_MANIFEST_INVALID', `manifest.json is invalid — ${formatIssues(parsed.error, { root: 'manifest' })}`, { field });
}

/**
 * Parses `manifest.json` text as a player may have hand-edited it. Never rewrites anything.
 * @param text - the file's content
 * @returns the validated manifest
 * @throws {StoryError} STORY_MANIFEST_INVALID (field `manifest` for JSON syntax errors)
 */
export function parseManifest(text: string): StoryManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new StoryError('STORY_MANIFEST_INVALID', `manifest.json is not valid JSON: ${(cause as Error).message}`, { cause, field: 'manifest' });
  }
  return validateManifest(value);
}

/**
 * Serialises a manifest the way the editing API writes it (2-space JSON, newline-terminated).
 * @param manifest - a manifest (validated before writing)
 * @returns the JSON text
 * @throws {StoryError} STORY_MANIFEST_INVALID naming the first bad field
 */
export function serializeManifest(manifest: StoryManifestInput): string {
  return `${JSON.stringify(validateManifest(manifest), null, 2)}\n`;
}

/**
 * The enabled sections in manifest order (`order`, then position in the array).
 * @param manifest - a validated manifest
 * @returns the enabled sections, sorted (never throws)
 */
export function orderedEnabledSections(manifest: StoryManifest): SectionEntry[] {
  return manifest.sections
    .map((section, index) => ({ section, index }))
    .filter(({ section }) => section.enabled)
    .sort((a, b) => a.section.order - b.section.order || a.index - b.index)
    .map(({ section }) => section);
}
