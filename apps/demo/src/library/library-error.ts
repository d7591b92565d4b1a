import { defineErrorClass } from '@troupe/kernel';

/**
 * Stable codes of the demo's libraries (characters, presets, personas, chats, settings):
 * - `LIBRARY_NOT_FOUND` — no item with that id;
 * - `LIBRARY_REVISION_CONFLICT` — the edit was based on an old revision; nothing was saved;
 * - `LIBRARY_READ_ONLY` — the built-in default preset cannot be changed or deleted;
 * - `LIBRARY_INVALID` — a stored item or an edit does not fit its schema (the message names the field);
 * - `SETTINGS_INVALID` — model settings that cannot be used (e.g. a base URL that is not http(s)).
 */
export type LibraryErrorCode = 'LIBRARY_NOT_FOUND' | 'LIBRARY_REVISION_CONFLICT' | 'LIBRARY_READ_ONLY' | 'LIBRARY_INVALID' | 'SETTINGS_INVALID';

/** An error of the demo's libraries; `code` is stable. Built with the kernel's `defineErrorClass`. */
export class LibraryError extends defineErrorClass<LibraryErrorCode>('LibraryError') {}
