import * as z from 'zod';

/**
 * The fields of a stored session event apart from its address (`id`, `sessionId`), in the order
 * every store writes them. A store checks events it reads back with it (files and database rows
 * can be edited by hand), so every backend accepts and rejects the same stored shapes. Cheaper
 * than `validateNewEvent` on purpose: what was appended was validated then; a read only needs to
 * know the shape is intact (no re-serialisation of `data`).
 */
export const StoredEventFieldsSchema = z.object({
  turnId: z.string(),
  step: z.number().int().min(0),
  type: z.string(),
  ignorable: z.boolean(),
  at: z.string(),
  key: z.string().optional(),
  data: z.unknown(),
});
