import { TREE_ID_PATTERN } from '@troupe/kernel/storage';
import * as z from 'zod';

/** A library id (character, preset, persona, chat): the storage's folder-name rule. */
export const LibraryIdSchema = z
  .string()
  .regex(TREE_ID_PATTERN, 'use 1–64 of a-z, 0-9, "_" and "-", starting with a letter or digit')
  .refine((id) => !/^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/.test(id), 'a device name such as "con" is not an id');

/** The revision an edit is based on. */
export const BaseRevisionSchema = z.number().int().min(1);
