import { type SessionEvent, validateNewEvent } from './session-log.js';
import { KernelStorageError } from './storage-errors.js';

/**
 * Parses and validates a JSON Lines export.
 * @throws {KernelStorageError} SESSION_INVALID_EVENT naming the bad line
 */
export function parseExport(jsonl: string): SessionEvent[] {
  if (typeof jsonl !== 'string') throw new KernelStorageError('SESSION_INVALID_EVENT', 'An export must be JSON Lines text');
  const lines = jsonl.split('\n').filter((line) => line.length > 0);
  const seen = new Set<string>();
  return lines.map((line, index) => {
    let event: SessionEvent;
    try {
      event = JSON.parse(line) as SessionEvent;
    } catch {
      throw new KernelStorageError('SESSION_INVALID_EVENT', `Line ${index + 1} of the export is not valid JSON`);
    }
    try {
      validateNewEvent(event);
    } catch (error) {
      throw new KernelStorageError('SESSION_INVALID_EVENT', `Line ${index + 1} of the export: ${(error as Error).message}`);
    }
    if (typeof event.id !== 'string' || !/^e[1-9][0-9]*$/.test(event.id) || seen.has(event.id)) {
      throw new KernelStorageError('SESSION_INVALID_EVENT', `Line ${index + 1} of the export has a missing or repeated id`);
    }
    seen.add(event.id);
    return event;
  });
}
