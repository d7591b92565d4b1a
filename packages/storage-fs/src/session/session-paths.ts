import { join } from 'node:path';
import { INDEX_FILE } from './index-file.js';

/** The file holding a session's events, one per line. */
export const EVENTS_FILE = 'events.jsonl';

/** The file holding `{nextSeq, parent?}` of a branched or imported session. */
export const META_FILE = 'session.json';

/** The files of one session. */
export interface SessionPaths {
  /** `<dir>/<id>` */
  readonly dir: string;
  /** `events.jsonl`: one event per line */
  readonly events: string;
  /** `session.json`: `{nextSeq, parent?}` of a branched or imported session */
  readonly meta: string;
  /** the cross-process lock file */
  readonly lock: string;
  /** `index.jsonl`: the persisted index (a cache, see `index-file.ts`) */
  readonly index: string;
}

/**
 * Where the files of one session live.
 * @param root - the folder holding one folder per session
 * @param sessionId - an already validated session id
 * @returns the session's paths
 */
export function sessionPaths(root: string, sessionId: string): SessionPaths {
  const dir = join(root, sessionId);
  return { dir, events: join(dir, EVENTS_FILE), meta: join(dir, META_FILE), lock: join(dir, 'lock'), index: join(dir, INDEX_FILE) };
}
