import { expect, it } from 'vitest';
import type { SessionEventsUpdate, TreeRevisionUpdate } from '../src/index.js';
import { asAdmin, codeOf, describePg, dropSchema, freshStorage } from './helpers.js';
import { pgUrl } from './helpers.js';
import { runFixture } from './support/children.js';
import { startSocketProxy } from './support/socket-proxy.js';

/** Resolves with the first value pushed, or rejects after `ms` (so a missing update fails the test). */
function firstOf<T>(ms = 5_000): { push: (value: T) => void; next: Promise<T> } {
  let push!: (value: T) => void;
  const next = new Promise<T>((resolve, reject) => {
    push = resolve;
    setTimeout(() => reject(new Error(`no update within ${ms} ms`)), ms).unref();
  });
  return { push, next };
}

describePg('live updates (LISTEN/NOTIFY)', () => {
  it("announces another process's new events and new revision to this one", async () => {
    const storage = await freshStorage();
    try {
      await storage.trees.create('story', {});
      const sessionUpdate = firstOf<SessionEventsUpdate>();
      const treeUpdate = firstOf<TreeRevisionUpdate>();
      const others: string[] = [];
      await storage.live.watchSession('chat', sessionUpdate.push);
      await storage.live.watchSession('other-chat', (update) => others.push(update.sessionId));
      await storage.live.watchTree('story', treeUpdate.push);
      const output = JSON.parse(await runFixture('one-turn.mjs', [pgUrl, storage.schema, 'story', 'chat'])) as { lastId: string };
      expect(await sessionUpdate.next).toEqual({ sessionId: 'chat', lastId: output.lastId });
      expect(await treeUpdate.next).toEqual({ treeId: 'story', revision: 2 });
      expect(others).toEqual([]);
    } finally {
      await storage.cleanup();
    }
  });

  it('announces nothing for a commit that failed, and nothing to another schema', async () => {
    const storage = await freshStorage();
    const neighbour = await freshStorage();
    try {
      await storage.trees.create('story', {});
      await neighbour.trees.create('story', {});
      const seen: TreeRevisionUpdate[] = [];
      const neighbourSeen: TreeRevisionUpdate[] = [];
      await storage.live.watchTree('story', (update) => seen.push(update));
      await neighbour.live.watchTree('story', (update) => neighbourSeen.push(update));
      expect(await codeOf(storage.trees.commit('story', { baseRevision: 7, writes: { 'a.md': 'x' } }))).toBe('TREE_REVISION_CONFLICT');
      const marker = firstOf<TreeRevisionUpdate>();
      const unsubscribe = await storage.live.watchTree('story', marker.push);
      await storage.trees.commit('story', { baseRevision: 1, writes: { 'a.md': 'x' } });
      await marker.next;
      await unsubscribe();
      expect(seen).toEqual([{ treeId: 'story', revision: 2 }]);
      expect(neighbourSeen).toEqual([]);
    } finally {
      await neighbour.cleanup();
      await storage.cleanup();
    }
  });

  it('re-listens after its connection is terminated and tells subscribers to re-read', async () => {
    const storage = await freshStorage({ applicationName: 'live-reconnect', reconnectDelayMs: 20 });
    try {
      const resync = firstOf<SessionEventsUpdate>();
      const controller = new AbortController();
      await storage.live.watchSession('chat', (update) => (update.lastId === undefined ? resync.push(update) : undefined), { signal: controller.signal });
      await asAdmin((client) => client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'live-reconnect' AND query LIKE 'LISTEN%'"));
      expect(await resync.next).toEqual({ sessionId: 'chat' });
      const after = firstOf<SessionEventsUpdate>();
      await storage.live.watchSession('chat', after.push);
      const [event] = await storage.sessions.append('chat', [{ turnId: 't', step: 0, type: 'test/a', ignorable: true, at: new Date().toISOString(), data: {} }]);
      expect(await after.next).toEqual({ sessionId: 'chat', lastId: event?.id });
      controller.abort();
      expect(await codeOf(storage.live.watchSession('../x', () => {}))).toBe('SESSION_INVALID_ID');
    } finally {
      await storage.cleanup();
    }
  });

  it('keeps retrying while the server is unreachable, and tells subscribers to re-read once it is back', async () => {
    const proxy = await startSocketProxy(pgUrl);
    const storage = await freshStorage({ connectionString: proxy.url, reconnectDelayMs: 10 });
    try {
      const resync = firstOf<SessionEventsUpdate>(10_000);
      await storage.live.watchSession('chat', (update) => (update.lastId === undefined ? resync.push(update) : undefined));
      await proxy.down();
      // Down long enough for several failed attempts (10, 20, 40, 80 … ms apart).
      await new Promise((resolve) => setTimeout(resolve, 300));
      await proxy.up();
      expect(await resync.next).toEqual({ sessionId: 'chat' });
      const after = firstOf<SessionEventsUpdate>();
      await storage.live.watchSession('chat', after.push);
      const [event] = await storage.sessions.append('chat', [{ turnId: 't', step: 0, type: 'test/a', ignorable: true, at: new Date().toISOString(), data: {} }]);
      expect(await after.next).toEqual({ sessionId: 'chat', lastId: event?.id });
    } finally {
      await storage.cleanup();
      await proxy.close();
    }
  });

  it('close() during a reconnect pause stops reconnecting: no attempt reaches the server afterwards', async () => {
    const proxy = await startSocketProxy(pgUrl);
    const storage = await freshStorage({ connectionString: proxy.url, reconnectDelayMs: 200 });
    const schema = storage.schema;
    try {
      await storage.live.watchSession('chat', () => {});
      await proxy.down();
      await new Promise((resolve) => setTimeout(resolve, 100)); // the lost connection is noticed, the first retry fails
      await storage.close();
      await proxy.up();
      const before = proxy.accepted;
      // Well past the pauses a still-running retry would take (200, 400 ms).
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(proxy.accepted).toBe(before);
    } finally {
      await storage.close();
      await dropSchema(schema);
      await proxy.close();
    }
  });
});
