import { parseManifest, STORY_ITEM_ID_PATTERN, StoryError, WORKSPACE_FILES } from '@troupe/plugin-story';
import * as z from 'zod';
import { ItemIdSchema, RevisionSchema, StoryIdSchema } from './validation.js';

const Markdown = z.string().max(1_000_000);
const Title = z.string().trim().min(1).max(200);

/** Pipeline settings a player may change (the manifest's `pipeline`). */
export const PipelinePatchSchema = z
  .object({
    maxParallel: z.number().int().min(1).max(8),
    provider: z.string().min(1).max(200).nullable(),
    model: z.string().min(1).max(200).nullable(),
    webSearch: z.boolean(),
    deadlineMs: z.number().int().min(1_000).max(3_600_000).nullable(),
    stageTimeoutMs: z.number().int().min(1_000).max(3_600_000).nullable(),
  })
  .partial()
  .strict();

/** `POST /api/stories` */
export const CreateStorySchema = z
  .object({ id: StoryIdSchema, name: Title, outline: Markdown.optional(), foreshadowing: Markdown.optional() })
  .strict();

const ITEM = STORY_ITEM_ID_PATTERN.source.slice(1, -1);
/**
 * Files the player edits through the API. `manifest.json` is here only so a player can repair one
 * a hand edit broke (it must then be a valid manifest); normal manifest changes have their own routes.
 */
export const EDITABLE_FILE_PATTERN = new RegExp(
  `^(?:manifest\\.json|(?:outline|foreshadowing|proposals|history)\\.md|characters/${ITEM}/(?:persona|knowledge)\\.md|sections/${ITEM}\\.md|sources/${ITEM}\\.md)$`,
);

const NOT_EDITABLE =
  'not an editable file (manifest.json, outline.md, foreshadowing.md, proposals.md, history.md, characters/<id>/persona.md|knowledge.md, sections/<id>.md, sources/<id>.md)';

/** `PUT /api/stories/:storyId/files` — write some files at once, based on one revision. */
export const WriteFilesSchema = z
  .object({
    baseRevision: RevisionSchema,
    files: z
      // The paths are checked below, not by a key schema: zod reports a bad record key only as
      // "Invalid key in record", and the player needs to know which files can be saved.
      .record(z.string(), Markdown)
      .refine((files) => Object.keys(files).length > 0, 'give at least one file')
      .superRefine((files, ctx) => {
        for (const path of Object.keys(files)) {
          if (!EDITABLE_FILE_PATTERN.test(path)) ctx.addIssue({ code: 'custom', path: [path], message: NOT_EDITABLE });
        }
        const manifest = files[WORKSPACE_FILES.manifest];
        if (manifest === undefined) return;
        try {
          parseManifest(manifest);
        } catch (error) {
          if (!StoryError.isInstance(error)) throw error;
          ctx.addIssue({ code: 'custom', path: [WORKSPACE_FILES.manifest], message: error.message });
        }
      }),
  })
  .strict();

/** `PATCH /api/stories/:storyId/manifest` — the workspace name and pipeline settings. */
export const PatchManifestSchema = z.object({ baseRevision: RevisionSchema, name: Title.optional(), pipeline: PipelinePatchSchema.optional() }).strict();

/** `POST /api/stories/:storyId/characters` */
export const AddCharacterSchema = z
  .object({ baseRevision: RevisionSchema, id: ItemIdSchema, name: Title, enabled: z.boolean().optional(), persona: Markdown.optional(), knowledge: Markdown.optional() })
  .strict();

/** `PATCH /api/stories/:storyId/characters/:characterId` */
export const PatchCharacterSchema = z.object({ baseRevision: RevisionSchema, name: Title.optional(), enabled: z.boolean().optional() }).strict();

const SectionKind = z.enum(['prose', 'character', 'history']);

/** `POST /api/stories/:storyId/sections` */
export const AddSectionSchema = z
  .object({
    baseRevision: RevisionSchema,
    id: ItemIdSchema,
    title: Title,
    kind: SectionKind,
    order: z.number().int().min(0).max(10_000).optional(),
    enabled: z.boolean().optional(),
    focus: ItemIdSchema.nullable().optional(),
    reference: Markdown.optional(),
  })
  .strict();

/** `PATCH /api/stories/:storyId/sections/:sectionId` */
export const PatchSectionSchema = z
  .object({
    baseRevision: RevisionSchema,
    title: Title.optional(),
    kind: SectionKind.optional(),
    order: z.number().int().min(0).max(10_000).optional(),
    enabled: z.boolean().optional(),
    focus: ItemIdSchema.nullable().optional(),
  })
  .strict();

/** `POST /api/stories/:storyId/sources` */
export const AddSourceSchema = z.object({ baseRevision: RevisionSchema, id: ItemIdSchema, title: Title, enabled: z.boolean().optional(), text: Markdown }).strict();

/** `PATCH /api/stories/:storyId/sources/:sourceId` */
export const PatchSourceSchema = z.object({ baseRevision: RevisionSchema, title: Title.optional(), enabled: z.boolean().optional() }).strict();
