// Retained heap of @troupe/storage-fs over many conversations (run with `node --expose-gc`):
// 10 000 turns over 200 conversations in a real temp folder, each doing on the stores what a
// story turn does — under the session's turn lock: event lookups, the history read by type, the
// commit batch (two prompt-carrying stage requests and the commit), the workspace read, its
// revision check, the settlement and the post-review batch. Only the stores are used (no
// harness), so the figure is what storage-fs keeps, not the kernel's history cache. Prints the
// heap after the first conversation's turns and after all of them, each after a full GC.
// BENCH_TURNS / BENCH_CONVERSATIONS change the sizes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fsStorage } from '@troupe/storage-fs';

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
const TURNS = Number(process.env.BENCH_TURNS ?? 10_000);
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 200);
const perConversation = Math.ceil(TURNS / CONVERSATIONS);

const heapMb = () => {
  for (let i = 0; i < 4; i++) globalThis.gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

const root = await mkdtemp(join(tmpdir(), 'troupe-heap-bench-'));
try {
  const { trees, sessions } = fsStorage({ root });
  const at = '2026-01-01T00:00:00.000Z';
  const prompt = { messages: [{ role: 'user', content: `## Public history\n${'- the party walked on.\n'.repeat(60)}` }] };
  const workspace = (c) => `w${c}`;
  const turn = async (c, n) => {
    const sessionId = `c${c}`;
    const turnId = `t${n}`;
    const event = (type, data, extra = {}) => ({ turnId, step: 0, type, ignorable: true, at, data, ...extra });
    await sessions.lockSessionTurn(sessionId, async () => {
      await sessions.findLatest(sessionId, { type: 'agent-rp/story-workspace-selected', key: 'selection' });
      await sessions.readTyped(sessionId, { types: ['kernel/turn-committed'], limit: 50 });
      const snapshot = await trees.read(workspace(c));
      await sessions.findLatest(sessionId, { type: 'agent-rp/story-draft-prepared', key: `${turnId}:${snapshot.revision}` });
      await sessions.append(sessionId, [
        event('agent-rp/story-stage-request', prompt),
        event('agent-rp/story-stage-request', prompt),
        event('agent-rp/story-draft-prepared', { text: 'draft '.repeat(40) }, { key: `${turnId}:${snapshot.revision}` }),
        event('kernel/turn-committed', { input: `turn ${n} of conversation ${c}`, reply: 'reply '.repeat(40) }, { ignorable: false, key: 'turn' }),
      ]);
      await sessions.findLatest(sessionId, { type: 'agent-rp/story-settled', key: `story:${turnId}` });
      // (optional chaining: an older storage-fs, for a "before" figure, has no currentRevision)
      await trees.currentRevision?.(workspace(c));
      await trees.settle(workspace(c), { marker: `story:${turnId}`, appends: { 'history.md': `- turn ${n}: ${'something happened. '.repeat(8)}`, 'proposals.md': `- idea ${n}` } });
      await sessions.append(sessionId, [event('agent-rp/story-settled', { ok: true }, { key: `story:${turnId}` }), event('kernel/post-review-done', {}, { key: `${turnId}:0` })]);
    });
  };
  for (let c = 0; c < CONVERSATIONS; c++) await trees.create(workspace(c), { 'manifest.json': '{"name":"w"}', 'history.md': '', 'outline.md': 'o', 'characters/lia/persona.md': 'p' });
  const empty = heapMb();
  // The first conversation, all its turns.
  for (let n = 0; n < perConversation; n++) await turn(0, n);
  const first = heapMb();
  const started = performance.now();
  // Every other conversation, interleaved (a server's many open chats).
  for (let n = 0; n < perConversation; n++) for (let c = 1; c < CONVERSATIONS; c++) await turn(c, n);
  const seconds = (performance.now() - started) / 1000;
  const all = heapMb();
  console.log(`## retained heap on storage-fs: ${CONVERSATIONS} conversations × ${perConversation} turns (${CONVERSATIONS * perConversation} turns, ${seconds.toFixed(0)} s)`);
  console.log('| heap after setup (MB) | after the first conversation (MB) | after all (MB) | beyond the first conversation (MB) |');
  console.log('|---:|---:|---:|---:|');
  console.log(`| ${empty.toFixed(1)} | ${first.toFixed(1)} | ${all.toFixed(1)} | ${(all - first).toFixed(1)} |`);
} finally {
  await rm(root, { recursive: true, force: true });
}
