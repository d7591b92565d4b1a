import { validateTreeId, validateSessionId } from '@troupe/kernel/storage';
import pg from 'pg';
import * as z from 'zod';
import { retryWithDelays } from '@troupe/kernel/util';
import { Database } from '../db/database.js';
import { type ResolvedOptions, reconnectDelay } from '../db/options.js';
import { toStorageError } from '../db/pg-error-map.js';
import { SESSION_EVENTS_CHANNEL, TREE_REVISIONS_CHANNEL } from './channels.js';

/** A session got new events (in any process on the database). */
export interface SessionEventsUpdate {
  readonly sessionId: string;
  /**
   * Id of the last event appended. Absent after the live connection was re-established:
   * updates may have been missed meanwhile, so re-read the session.
   */
  readonly lastId?: string;
}

/** A workspace has a new revision (commit, settlement or create, in any process). */
export interface TreeRevisionUpdate {
  readonly treeId: string;
  /** The new revision; absent after a reconnect (re-read the tree). */
  readonly revision?: number;
}

/** Options of the `watch…` calls. */
export interface WatchOptions {
  /** Stops the subscription when aborted. */
  readonly signal?: AbortSignal;
}

/** Ends a subscription. */
export type Unsubscribe = () => Promise<void>;

const SessionPayload = z.object({ schema: z.string(), sessionId: z.string(), lastId: z.string() });
const TreePayload = z.object({ schema: z.string(), treeId: z.string(), revision: z.number().int() });

type Listener = (update: SessionEventsUpdate & TreeRevisionUpdate) => void;

/**
 * Live updates across processes over PostgreSQL LISTEN/NOTIFY: every append and every new tree
 * revision is announced when its transaction commits (a rolled-back change announces nothing).
 * One dedicated connection per storage listens while anyone is subscribed; if it drops, it is
 * re-established with backoff and every subscriber gets an update without id/revision ("re-read").
 */
export class PgLiveUpdates {
  readonly #options: ResolvedOptions;
  readonly #listeners = new Map<string, Set<Listener>>();
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #reconnecting: Promise<void> | undefined;
  // Aborted by close() or when the last subscriber leaves: ends a reconnect attempt or pause at once.
  #stopReconnecting: AbortController | undefined;
  #closed = false;

  /** @param options - the storage's validated options */
  constructor(options: ResolvedOptions) {
    this.#options = options;
  }

  /**
   * Calls `listener` whenever `sessionId` gets new events. Resolves once listening: every append
   * committed after that is announced.
   * @param sessionId - the session (need not exist yet)
   * @param listener - gets `{sessionId, lastId}`
   * @param options - `signal` ends the subscription
   * @returns a function that ends it
   * @throws {KernelStorageError} SESSION_INVALID_ID; STORAGE_IO when no connection could be made
   */
  async watchSession(sessionId: string, listener: (update: SessionEventsUpdate) => void, options: WatchOptions = {}): Promise<Unsubscribe> {
    validateSessionId(sessionId);
    return this.#watch(`session:${sessionId}`, () => listener({ sessionId }), listener as Listener, options);
  }

  /**
   * Calls `listener` whenever `treeId` gets a new revision. Resolves once listening.
   * @param treeId - the workspace (need not exist yet)
   * @param listener - gets `{treeId, revision}`
   * @param options - `signal` ends the subscription
   * @returns a function that ends it
   * @throws {KernelStorageError} TREE_INVALID_ID; STORAGE_IO when no connection could be made
   */
  async watchTree(treeId: string, listener: (update: TreeRevisionUpdate) => void, options: WatchOptions = {}): Promise<Unsubscribe> {
    validateTreeId(treeId);
    return this.#watch(`tree:${treeId}`, () => listener({ treeId }), listener as Listener, options);
  }

  /** Ends every subscription and the listening connection. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    this.#stopReconnecting?.abort(new DOMException('The PostgreSQL storage was closed', 'AbortError'));
    await this.#reconnecting;
    await this.#disconnect();
  }

  async #watch(topic: string, resync: () => void, listener: Listener, options: WatchOptions): Promise<Unsubscribe> {
    options.signal?.throwIfAborted();
    // Each subscription gets its own wrapper, so one listener subscribed twice is two subscriptions.
    const entry: Listener = (update) => {
      if (update.lastId === undefined && update.revision === undefined) resync();
      else listener(update);
    };
    let set = this.#listeners.get(topic);
    if (!set) {
      set = new Set();
      this.#listeners.set(topic, set);
    }
    set.add(entry);
    const unsubscribe = async () => {
      options.signal?.removeEventListener('abort', onAbort);
      const current = this.#listeners.get(topic);
      current?.delete(entry);
      if (current?.size === 0) this.#listeners.delete(topic);
      if (this.#listeners.size === 0) {
        this.#stopReconnecting?.abort(new DOMException('Nobody listens any more', 'AbortError'));
        await this.#disconnect();
      }
    };
    const onAbort = () => void unsubscribe();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await this.#ensureListening();
    } catch (error) {
      await unsubscribe();
      throw toStorageError(error, 'listening for live updates');
    }
    return unsubscribe;
  }

  #ensureListening(): Promise<void> {
    if (this.#client) return Promise.resolve();
    this.#connecting ??= this.#listen().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #listen(): Promise<void> {
    if (this.#closed) throw new Error('The PostgreSQL storage was closed');
    const config = Database.clientConfig(this.#options);
    const client = new pg.Client({ ...config, statement_timeout: undefined });
    const lost = () => {
      if (this.#client !== client) return;
      this.#client = undefined;
      client.end().catch(() => {});
      this.#scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (message) => this.#dispatch(message.channel, message.payload));
    await client.connect();
    // Fixed channel names (LISTEN takes an identifier; nothing user-chosen is in the text).
    await client.query(`LISTEN ${SESSION_EVENTS_CHANNEL}`);
    await client.query(`LISTEN ${TREE_REVISIONS_CHANNEL}`);
    this.#client = client;
  }

  // Re-listens after the connection dropped: at once, then after pauses that double from
  // `reconnectDelayMs` up to 30 s, for as long as anyone is subscribed. The pauses are the
  // kernel's retry schedule, so close() ends a pause at once and nothing is left scheduled.
  #scheduleReconnect(): void {
    if (this.#closed || this.#listeners.size === 0 || this.#reconnecting) return;
    const nobody = 'nobody listens' as const;
    const stop = new AbortController();
    this.#stopReconnecting = stop;
    const reconnected = retryWithDelays<typeof nobody | 'listening'>({
      signal: stop.signal,
      attempt: async () => {
        if (this.#listeners.size === 0) return nobody;
        await this.#ensureListening();
        return 'listening';
      },
      delayBeforeRetry: (_error, retry) => (this.#listeners.size === 0 ? undefined : reconnectDelay(this.#options.reconnectDelayMs, retry)),
    });
    this.#reconnecting = reconnected.then(
      (outcome) => {
        this.#reconnecting = undefined;
        this.#stopReconnecting = undefined;
        if (outcome === nobody) return;
        // Anything committed while nobody listened was not announced: tell everyone to re-read.
        for (const set of [...this.#listeners.values()]) for (const listener of [...set]) listener({} as never);
      },
      () => {
        // Closed, or the last subscriber left: nothing to re-listen for.
        this.#reconnecting = undefined;
        this.#stopReconnecting = undefined;
      },
    );
  }

  #dispatch(channel: string, payload: string | undefined): void {
    let update: { topic: string; value: SessionEventsUpdate & TreeRevisionUpdate } | undefined;
    try {
      const parsed: unknown = JSON.parse(payload ?? '');
      if (channel === SESSION_EVENTS_CHANNEL) {
        const { schema, sessionId, lastId } = SessionPayload.parse(parsed);
        if (schema === this.#options.schema) update = { topic: `session:${sessionId}`, value: { sessionId, lastId } as never };
      } else if (channel === TREE_REVISIONS_CHANNEL) {
        const { schema, treeId, revision } = TreePayload.parse(parsed);
        if (schema === this.#options.schema) update = { topic: `tree:${treeId}`, value: { treeId, revision } as never };
      }
    } catch {
      // Anyone may NOTIFY on these channels: a payload that is not ours is ignored.
      return;
    }
    if (!update) return;
    for (const listener of [...(this.#listeners.get(update.topic) ?? [])]) {
      try {
        listener(update.value);
      } catch {
        // One failing subscriber never stops the others.
      }
    }
  }

  async #disconnect(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await this.#connecting?.catch(() => {});
    const late = this.#client as pg.Client | undefined;
    if (late && this.#listeners.size === 0) {
      this.#client = undefined;
      await late.end().catch(() => {});
    }
    await client?.end().catch(() => {});
  }
}
