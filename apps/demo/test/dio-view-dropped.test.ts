import type { SessionEvent } from '@troupe/kernel';
import { describe, expect, it } from 'vitest';
import { latestDioLookup } from '../src/server/dio-view.js';

const event = (id: number, type: string, data: unknown = {}): SessionEvent => ({ id: `e${id}`, sessionId: 's', turnId: 't2', step: 0, type, ignorable: true, at: `2026-01-01T00:00:0${id}.000Z`, data });

describe('the DIO view’s last lookup', () => {
  it('says the compiled prompt was dropped for the context when the assembler left it out', () => {
    const lookup = latestDioLookup([
      event(1, 'dio/active-prompt-applied', { versionId: 'v1' }),
      event(2, 'actor-assembler/dio-dropped', { reason: 'context-budget', promptTokens: 26_000, budgetTokens: 3_584 }),
    ]);
    expect(lookup).toMatchObject({ outcome: 'dropped', turnId: 't2', data: { reason: 'context-budget', budgetTokens: 3_584 } });
  });

  it('is the lookup’s outcome otherwise', () => {
    expect(latestDioLookup([event(1, 'dio/active-prompt-applied', { versionId: 'v1' }), event(2, 'kernel/turn-committed')])).toMatchObject({ outcome: 'applied' });
  });
});
