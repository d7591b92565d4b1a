import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createHarness } from '@troupe/kernel';
import { ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { FsSessionLog } from '../src/index.js';
import { countingFs, tempRoot } from './helpers.js';

const TURNS = 10_000;
const at = '2026-01-01T00:00:00.000Z';

// An export of a long story session: per turn two prompt-carrying stage requests (~1.5 KB each)
// and the commit; near the end a regeneration, a swipe back and an edit.
function longExport(): string {
  const lines: string[] = [];
  let seq = 1;
  const push = (event: Record<string, unknown>) => lines.push(`${JSON.stringify({ id: `e${seq++}`, sessionId: 'long', ignorable: true, at, step: 0, ...event })}\n`);
  const prompt = { messages: [{ role: 'user', content: `## Public history\n${'- the party walked on.\n'.repeat(30)}` }] };
  for (let turn = 1; turn <= TURNS; turn++) {
    push({ turnId: `t${turn}`, type: 'agent-rp/story-stage-request', data: prompt });
    push({ turnId: `t${turn}`, type: 'agent-rp/story-stage-request', data: prompt });
    push({ turnId: `t${turn}`, type: 'kernel/turn-committed', ignorable: false, key: 'turn', data: { input: `input ${turn}`, reply: `reply ${turn}` } });
  }
  push({ turnId: 't9990', step: 1, type: 'kernel/turn-committed', ignorable: false, key: 'turn', data: { input: 'input 9990', reply: 'regenerated 9990' } });
  push({ turnId: 't9990', step: 0, type: 'kernel/step-selected', ignorable: false, data: { step: 0 } });
  push({ turnId: 't9995', step: 0, type: 'kernel/turn-edited', ignorable: false, data: { reply: 'EDITED 9995' } });
  return lines.join('');
}

describe('bounded first history read in a fresh process (storage-fs, real temp dir)', () => {
  it('the first turn on a 10 000-turn session reads about its last 1 000 commit lines, not the log', async () => {
    const { root, cleanup } = await tempRoot();
    try {
      await new FsSessionLog({ dir: join(root, 'sessions'), fs: (await import('../src/index.js')).nodeStorageFs }).import('long', longExport());
      const logSize = (await stat(join(root, 'sessions', 'long', 'events.jsonl'))).size;
      // A fresh store instance and harness: nothing of the session is in memory.
      const counting = countingFs('events.jsonl');
      const sessionLog = new FsSessionLog({ dir: join(root, 'sessions'), fs: counting.fs });
      const model = new ScriptedChatModel({ byStage: { actor: ['next reply'] } });
      const harness = await createHarness({ sessionLog, model, maxHistoryTurns: 1000 });
      await harness.runTurn({ sessionId: 'long', text: 'and then?', turnId: 'next' });
      await harness.close();
      const read = counting.bytesRead();
      console.log(`events.jsonl: ${logSize} bytes; read for the first turn: ${read} bytes`);
      // About the last 1 000 commit lines (~190 B each) plus a few single lines, of a ~20 MB log.
      expect(logSize).toBeGreaterThan(15_000_000);
      expect(read).toBeLessThan(1100 * 200 + 20_000);
      const sent = model.calls[0]!.messages.map((m) => m.content);
      expect(sent).toContain('reply 10000');
      expect(sent).toContain('EDITED 9995');
      expect(sent).toContain('reply 9990');
      expect(sent).not.toContain('regenerated 9990');
      expect(sent).not.toContain('reply 8999');
      expect(sent).toContain('reply 9001');
    } finally {
      await cleanup();
    }
  }, 60_000);
});
