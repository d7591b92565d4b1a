import { type HeldSessionTurn, KernelStorageError, type LockSessionTurnOptions, type SessionTurnLock } from '@troupe/kernel';
import { validateSessionId } from '@troupe/kernel/storage';
import { abortReason, raceAbort } from '@troupe/kernel/util';
import pg from 'pg';
import { Database } from '../db/database.js';
import type { ResolvedOptions } from '../db/options.js';
import { sqlstateOf, toStorageError } from '../db/pg-error-map.js';

// Every session's lock is one 64-bit advisory lock key derived in SQL from the schema and the
// session id (a bound parameter): other schemas and other sessions never share it, up to a
// 2^-64 hash collision.
const KEY = "hashtextextended('troupe:turn:' || current_schema() || ':' || $1::text, 0)";

/**
 * Per-session turn serialisation across processes with PostgreSQL session-level advisory locks.
 * Each held lock has its own connection (from a pool separate from the stores', so turns holding
 * locks can never starve the store calls they make): the lock lives exactly as long as that
 * connection's hold — released when `work` settles, and by the server at once when the holder's
 * process dies or its connection drops.
 */
export class PgTurnLocks implements SessionTurnLock {
  readonly #options: ResolvedOptions;
  #pool: pg.Pool | undefined;
  #closed = false;

  /**
   * @param options - the storage's validated options (`turnLockTimeoutMs` bounds the wait)
   */
  constructor(options: ResolvedOptions) {
    this.#options = options;
  }

  /**
   * Runs `work` holding the session's turn lock: at most one `work` per session at a time across
   * every process on the database (not reentrant). The kernel's `SessionTurnLock` port.
   * @param sessionId - the session (validated like the log's ids; it need not exist)
   * @param work - the critical section
   * @param options - `signal` cancels the wait
   * @throws {KernelStorageError} SESSION_INVALID_ID; STORAGE_IO when another holder kept the
   * session past the timeout (named in the message) or the database failed; the signal's reason
   */
  async lockSessionTurn<T>(sessionId: string, work: (turn: HeldSessionTurn) => Promise<T>, options: LockSessionTurnOptions = {}): Promise<T> {
    validateSessionId(sessionId);
    const { signal } = options;
    signal?.throwIfAborted();
    const client = await this.#connect(sessionId, signal);
    let broken: Error | undefined;
    // The lock's connection can drop while `work` runs (no query in flight): heard here, so the
    // next assertHeld fails instead of the process crashing on an unheard 'error' event.
    const onError = (error: Error) => {
      broken ??= error;
    };
    client.on('error', onError);
    try {
      await this.#acquire(client, sessionId, signal);
    } catch (error) {
      client.off('error', onError);
      client.release(true);
      throw error;
    }
    try {
      return await work({
        assertHeld: async (what) => {
          const rows = await client
            .query(
              `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = ${KEY}) AS held`,
              [sessionId],
            )
            .catch((error: unknown) => {
              broken = error as Error;
              return { rows: [] };
            });
          if (broken || rows.rows[0]?.held !== true) {
            throw new KernelStorageError('STORAGE_IO', `The turn lock of session "${sessionId}" was lost (its database connection dropped) before ${what}; nothing was done`, {
              cause: broken,
            });
          }
        },
      });
    } finally {
      try {
        if (!broken) await client.query(`SELECT pg_advisory_unlock(${KEY})`, [sessionId]);
      } catch (error) {
        broken = error as Error;
      }
      client.off('error', onError);
      // A connection that failed is destroyed: the server releases whatever it held.
      client.release(broken);
    }
  }

  /** Closes the lock connections (held locks are released by the server). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#pool?.end();
  }

  async #connect(sessionId: string, signal: AbortSignal | undefined): Promise<pg.PoolClient> {
    if (this.#closed) throw new KernelStorageError('STORAGE_IO', `The PostgreSQL storage was closed; the turn lock of session "${sessionId}" was not taken`);
    if (!this.#pool) {
      // No statement timeout here: waiting for a lock is bounded by lock_timeout instead.
      this.#pool = new pg.Pool({ ...Database.clientConfig(this.#options), statement_timeout: undefined, max: Math.max(2, this.#options.poolSize * 2) });
      this.#pool.on('error', () => {});
    }
    const connecting = this.#pool.connect();
    try {
      return signal ? await raceAbort(connecting, signal) : await connecting;
    } catch (error) {
      if (signal?.aborted) {
        // The connection still arrives later: hand it straight back.
        connecting.then((client) => client.release(), () => {});
        throw abortReason(signal);
      }
      throw toStorageError(error, `taking the turn lock of session "${sessionId}"`);
    }
  }

  /** Blocks on the advisory lock server-side, bounded by lock_timeout; an abort drops the connection (ending the wait). */
  async #acquire(client: pg.PoolClient, sessionId: string, signal: AbortSignal | undefined): Promise<void> {
    const onAbort = () => {
      // Cancelling the wait = closing its connection: the server stops waiting and takes nothing.
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await client.query("SELECT set_config('lock_timeout', $1, false)", [`${this.#options.turnLockTimeoutMs}ms`]);
      await client.query(`SELECT pg_advisory_lock(${KEY})`, [sessionId]);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (sqlstateOf(error) === '55P03') throw await this.#timedOut(sessionId);
      throw toStorageError(error, `taking the turn lock of session "${sessionId}"`);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (signal?.aborted) throw signal.reason;
  }

  async #timedOut(sessionId: string): Promise<KernelStorageError> {
    let holder = 'another process';
    try {
      const { rows } = await (this.#pool as pg.Pool).query(
        `SELECT a.pid, a.application_name, a.client_addr::text AS addr, a.backend_start FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND ((l.classid::bigint << 32) | l.objid::bigint) = ${KEY} LIMIT 1`,
        [sessionId],
      );
      const row = rows[0] as Record<string, unknown> | undefined;
      if (row) holder = `backend ${row.pid} (${row.application_name || 'no application name'}${row.addr ? ` from ${row.addr}` : ''}, connected ${new Date(String(row.backend_start)).toISOString()})`;
    } catch {
      // The message stays generic; the timeout is the error that matters.
    }
    return new KernelStorageError(
      'STORAGE_IO',
      `Session "${sessionId}" is busy: a turn held by ${holder} did not finish within ${this.#options.turnLockTimeoutMs} ms. Try again; if that process is gone, its lock is released when its connection closes.`,
    );
  }
}
