import { KernelStorageError } from '@troupe/kernel';

/**
 * Thrown inside a locked call when the index pointed at a line that is not the expected event.
 * Internal: the lock runner catches it, rebuilds the index and turns a repeat into SESSION_CORRUPT.
 */
export class IndexMismatch extends Error {}

/**
 * The error for an event (or session folder) that is not there.
 * @param sessionId - the session
 * @param eventId - the missing event
 * @returns a SESSION_EVENT_NOT_FOUND error
 */
export function eventNotFound(sessionId: string, eventId: string): KernelStorageError {
  return new KernelStorageError('SESSION_EVENT_NOT_FOUND', `Session "${sessionId}" has no event "${eventId}"`);
}

/**
 * The error for creating a session that already exists.
 * @param sessionId - the session
 * @returns a SESSION_EXISTS error
 */
export function sessionExists(sessionId: string): KernelStorageError {
  return new KernelStorageError('SESSION_EXISTS', `Session "${sessionId}" already exists`);
}
