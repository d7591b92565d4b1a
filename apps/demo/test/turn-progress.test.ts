import { describe, expect, it } from 'vitest';
import type { CliOutput } from '../src/cli/output.js';
import { turnProgress } from '../src/cli/turn-progress.js';

/** A fake CliOutput recording lines and status redraws in order. */
function fakeOutput(isTTY: boolean): CliOutput & { readonly log: string[] } {
  const log: string[] = [];
  return {
    isTTY,
    log,
    line: (text = '') => log.push(`line:${text}`),
    write: (text) => log.push(`write:${text}`),
    // Like streamOutput: a plain (non-TTY) output ignores status lines.
    status: (text) => {
      if (isTTY) log.push(`status:${text}`);
    },
    clearStatus: () => {
      if (isTTY) log.push('clear');
    },
  };
}

const request = (stage: string, item?: string) => ({ type: 'agent-rp/story-stage-request', data: { stage, ...(item ? { item } : {}) } });
const result = (stage: string, item?: string, ok = true) => ({
  type: 'agent-rp/story-stage-result',
  data: { stage, ...(item ? { item } : {}), ok, ...(ok ? {} : { error: { code: 'X', message: 'model down' } }) },
});

describe('turnProgress', () => {
  it('keeps parallel character workers apart by their item id', () => {
    const out = fakeOutput(true);
    const onEvent = turnProgress(out);
    onEvent(request('story/character', 'lia'));
    onEvent(request('story/character', 'marco'));
    expect(out.log.at(-1)).toBe('status:  ⋯ story pipeline: character:lia, character:marco');
    onEvent(result('story/character', 'lia'));
    // Lia finished; Marco is still running and stays on the status line.
    expect(out.log.slice(-2)).toEqual(['line:  ✓ character:lia', 'status:  ⋯ story pipeline: character:marco']);
    onEvent(result('story/character', 'marco', false));
    expect(out.log.at(-1)).toBe('line:  ✗ character:marco (model down)');
  });

  it('redraws a status line in a terminal and prints only whole lines otherwise', () => {
    const events = [request('story/research'), result('story/research'), request('story/section', 'scene'), result('story/section', 'scene'), { type: 'dio/scheduled', data: { requestId: 't1:dio' } }];
    const tty = fakeOutput(true);
    const plain = fakeOutput(false);
    const ttyProgress = turnProgress(tty);
    const plainProgress = turnProgress(plain);
    for (const event of events) {
      ttyProgress(event);
      plainProgress(event);
    }
    expect(tty.log).toEqual([
      'status:  ⋯ story pipeline: research',
      'line:  ✓ research',
      'status:  ⋯ story pipeline: section:scene',
      'line:  ✓ section:scene',
      'line:  ▸ DIO accepted the requirement (request t1:dio, applies from the next turn)',
    ]);
    expect(plain.log).toEqual(['line:  ✓ research', 'line:  ✓ section:scene', 'line:  ▸ DIO accepted the requirement (request t1:dio, applies from the next turn)']);
  });

  it("says once that the director's tools could not be offered, however many turns report it", () => {
    const out = fakeOutput(false);
    const onEvent = turnProgress(out);
    const unavailable = { type: 'kernel/director-tools-unavailable', data: { reason: 'decision-invalid', model: 'm', tools: ['schedule_dio'] } };
    onEvent({ type: 'kernel/director-json-fallback', data: { reason: 'rejected', model: 'm', status: 400 } });
    onEvent(unavailable);
    onEvent({ type: 'kernel/director-json-fallback', data: { reason: 'rejected', model: 'm', status: 400 } });
    onEvent(unavailable);
    expect(out.log).toEqual([
      'line:  ▸ the director model cannot call tools (rejected, HTTP 400); it is asked for a JSON decision instead',
      "line:  ! the director's tools (schedule_dio) could not be offered: decision-invalid — lasting requirements (DIO) are not submitted",
    ]);
  });
});
