import { appendSettleBlock } from '@troupe/kernel/storage';
import { expect, it } from 'vitest';
import { asAdmin, describePg, freshStorage } from './helpers.js';

describePg('PgTreeStore beyond the contract', () => {
  it('keeps any text byte for byte, U+0000 and astral characters included', async () => {
    const storage = await freshStorage();
    try {
      const text = 'a\u0000b 雾港 🐉 \r\n end';
      await storage.trees.create('s', { 'a.md': text, 'manifest.json': '{broken' });
      await storage.trees.commit('s', { baseRevision: 1, writes: { 'b.md': text } });
      const { files } = await storage.trees.read('s');
      expect(files).toEqual({ 'a.md': text, 'b.md': text, 'manifest.json': '{broken' });
    } finally {
      await storage.cleanup();
    }
  });

  it('appends settlement blocks in SQL exactly as appendSettleBlock does', async () => {
    const storage = await freshStorage();
    try {
      const existing = { 'no-newline.md': 'line', 'newline.md': 'line\n', 'empty.md': '' };
      await storage.trees.create('s', existing);
      const appends = { 'no-newline.md': 'x', 'newline.md': 'y\n', 'empty.md': 'z', 'new.md': '新' };
      await storage.trees.settle('s', { marker: 'turn-1:0', appends });
      const { files } = await storage.trees.read('s');
      for (const [path, text] of Object.entries(appends)) {
        expect(files[path], path).toBe(appendSettleBlock(existing[path as keyof typeof existing] ?? '', 'turn-1:0', text));
      }
    } finally {
      await storage.cleanup();
    }
  });

  it('keeps exact bytes across hundreds of settlements (blocks folded every 256) and a commit between them', async () => {
    const storage = await freshStorage();
    try {
      await storage.trees.create('s', { 'history.md': '# History' });
      let expected = '# History';
      let other = '';
      for (let turn = 0; turn < 300; turn++) {
        const appends = { 'history.md': `turn ${turn}`, 'knowledge.md': `k${turn}\n` };
        await storage.trees.settle('s', { marker: `turn-${turn}:0`, appends });
        expected = appendSettleBlock(expected, `turn-${turn}:0`, appends['history.md']);
        other = appendSettleBlock(other, `turn-${turn}:0`, appends['knowledge.md']);
        if (turn === 150) {
          // A player edit rewrites the file (its blocks are folded away) without a final newline.
          const { revision } = await storage.trees.read('s');
          expected = `${expected}edited`;
          await storage.trees.commit('s', { baseRevision: revision, writes: { 'history.md': expected } });
        }
      }
      const { files, revision } = await storage.trees.read('s');
      expect(revision).toBe(302);
      expect(files['history.md']).toBe(expected);
      expect(files['knowledge.md']).toBe(other);
    } finally {
      await storage.cleanup();
    }
  });

  it('lets 1 of 50 concurrent saves on one base win; 49 conflict and write nothing', async () => {
    const storage = await freshStorage({ poolSize: 50 });
    try {
      await storage.trees.create('s', { 'a.md': 'base', 'b.md': 'base' });
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, (_, index) => storage.trees.commit('s', { baseRevision: 1, writes: { 'a.md': `a${index}`, 'b.md': `b${index}`, [`only-${index}.md`]: 'x' } })),
      );
      const won = results.filter((result) => result.status === 'fulfilled');
      const lost = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost.map((result) => (result.reason as { code?: string }).code)).toEqual(Array(49).fill('TREE_REVISION_CONFLICT'));
      const { revision, files } = await storage.trees.read('s');
      expect(revision).toBe(2);
      const winner = Object.keys(files).find((path) => path.startsWith('only-'))?.slice('only-'.length, -'.md'.length);
      expect(files).toEqual({ 'a.md': `a${winner}`, 'b.md': `b${winner}`, [`only-${winner}.md`]: 'x' });
    } finally {
      await storage.cleanup();
    }
  });

  it('records each settlement marker once under a unique constraint', async () => {
    const storage = await freshStorage();
    try {
      await storage.trees.create('s', {});
      await storage.trees.settle('s', { marker: 'turn-1:0', appends: { 'history.md': 'one' } });
      const violation = await asAdmin((client) =>
        client.query(`INSERT INTO "${storage.schema}".troupe_tree_settlements (tree_id, marker, digest, revision) VALUES ('s', 'turn-1:0', 'x', 9)`).catch((error: { code?: string }) => error.code),
      );
      expect(violation).toBe('23505');
    } finally {
      await storage.cleanup();
    }
  });
});
