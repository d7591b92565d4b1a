import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect, it } from 'vitest';
import { type PgSessionLog, postgresStorage } from '../src/index.js';
import { asAdmin, codeOf, describePg, freshStorage, pgUrl } from './helpers.js';
import { childEnv, fixture, runFixture } from './support/children.js';

function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Two storages (two pools, as two servers would have) on one fresh schema. */
async function twoServers(options: { turnLockTimeoutMs?: number } = {}) {
  const first = await freshStorage(options);
  const second = postgresStorage({ connectionString: pgUrl, schema: first.schema, ...options });
  return {
    first: first.sessions,
    second: second.sessions,
    schema: first.schema,
    cleanup: async () => {
      await second.close();
      await first.cleanup();
    },
  };
}

/** Takes `sessionId`'s lock on `log` and holds it until `release` is called; resolves once held. */
async function holdLock(log: { lockSessionTurn: PgSessionLog['lockSessionTurn'] }, sessionId = 's1'): Promise<{ release: () => void; done: Promise<void> }> {
  const held = gate();
  const entered = gate();
  const done = log.lockSessionTurn(sessionId, async () => {
    entered.open();
    await held.opened;
  });
  await entered.opened;
  return { release: held.open, done };
}

// Holding, handing over, other sessions and cancelled waits are the kernel's contract
// (contract.test.ts); these are what only a database lock has to show.
describePg('per-session turn lock (advisory lock)', () => {
  it('a cancel while waiting for a lock connection rejects with the reason, and the connection that comes later goes back to the pool', async () => {
    // poolSize 1: the lock pool has 2 connections, both taken by two held sessions.
    const storage = await freshStorage({ poolSize: 1 });
    try {
      const holders = await Promise.all(['a', 'b'].map((sessionId) => holdLock(storage.sessions, sessionId)));
      const controller = new AbortController();
      const reason = new DOMException('player left', 'AbortError');
      const waiting = storage.sessions.lockSessionTurn('c', async () => 'never', { signal: controller.signal });
      await pause(50);
      controller.abort(reason);
      await expect(waiting).rejects.toBe(reason);
      for (const holder of holders) holder.release();
      await Promise.all(holders.map((holder) => holder.done));
      // Both connections are back: two locks held at once again (a leaked one would hang here).
      const again = await Promise.all(['d', 'e'].map((sessionId) => holdLock(storage.sessions, sessionId)));
      for (const holder of again) holder.release();
      await Promise.all(again.map((holder) => holder.done));
    } finally {
      await storage.cleanup();
    }
  });

  it('a bounded wait fails with STORAGE_IO naming the holder', async () => {
    const { first, second, cleanup } = await twoServers({ turnLockTimeoutMs: 300 });
    try {
      const holder = await holdLock(first);
      const error = await second.lockSessionTurn('s1', async () => 'never').catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'STORAGE_IO' });
      expect((error as Error).message).toMatch(/busy: a turn held by backend \d+ \(troupe/);
      holder.release();
      await holder.done;
    } finally {
      await cleanup();
    }
  });

  it('a holder whose connection drops loses the lock: assertHeld fails and the next holder gets it', async () => {
    const { first, second, cleanup } = await twoServers();
    try {
      const entered = gate();
      const proceed = gate();
      const a = first.lockSessionTurn('s1', async (turn) => {
        await turn.assertHeld('the first check');
        entered.open();
        await proceed.opened;
        await turn.assertHeld('the commit');
      });
      await entered.opened;
      // Terminate the backend holding the advisory lock (as a network cut would).
      await asAdmin((client) =>
        client.query("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()"),
      );
      expect(await second.lockSessionTurn('s1', async () => 'taken over')).toBe('taken over');
      proceed.open();
      expect(await codeOf(a)).toBe('STORAGE_IO');
      expect(await first.lockSessionTurn('s1', async () => 'usable again')).toBe('usable again');
    } finally {
      await cleanup();
    }
  });

  it('a holder process killed with SIGKILL releases the lock at once', async () => {
    const { first, schema, cleanup } = await twoServers();
    try {
      const child = spawn(process.execPath, [fixture('hold-turn-lock.mjs'), pgUrl, schema, 's1'], { env: childEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = once(child, 'exit');
      await once(child.stdout, 'data');
      const controller = new AbortController();
      const waiting = first.lockSessionTurn('s1', async () => 'got it', { signal: controller.signal });
      await pause(150);
      child.kill('SIGKILL');
      await exited;
      expect(await waiting).toBe('got it');
    } finally {
      await cleanup();
    }
  });

  it('serialises turns of one session across processes: every turn reads the one before it', async () => {
    const { first, schema, cleanup } = await twoServers();
    try {
      const workers = 3;
      const turns = 8;
      await Promise.all(Array.from({ length: workers }, (_, worker) => runFixture('turn-worker.mjs', [pgUrl, schema, 'race', String(worker), String(turns)])));
      const numbers = (await first.read('race')).map((event) => (event.data as { n: number }).n);
      expect(numbers).toEqual(Array.from({ length: workers * turns }, (_, index) => index + 1));
    } finally {
      await cleanup();
    }
  });
});
