import { formatIssues } from '@troupe/kernel';
import { createTestHarness } from '@troupe/kernel/testing';
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { rejectionOf } from './helpers.js';

// Bad chat-control requests read like every other validation error of Troupe: the kernel's
// issue formatter names each field (`scenario.tokenBudget.contextTokens: …`), the whole request
// is "request", and each issue is listed in `details.issues`.

describe('chat-control validation messages', () => {
  it('use formatIssues for select, edit, remove and continue alike', async () => {
    const { harness } = await createTestHarness();
    await harness.runTurn({ sessionId: 's', text: 'one', turnId: 't1' });

    const edit = (await rejectionOf(harness.editTurn({ sessionId: 's', turnId: 't1', step: -1, reply: 'x' }))) as Error;
    expect(edit).toMatchObject({ code: 'KERNEL_CHAT_CONTROL_INVALID' });
    expect(edit.message).toMatch(/^Invalid edit-turn request: step: /);

    const extra = (await rejectionOf(harness.selectStep({ sessionId: 's', turnId: 't1', step: 0, bogus: true } as never))) as Error;
    expect(extra.message).toMatch(/^Invalid select-step request: request: /);

    const continued = (await rejectionOf(harness.continueTurn({ sessionId: 's', scenario: { tokenBudget: { contextTokens: -5 } } }))) as Error;
    expect(continued).toMatchObject({ code: 'KERNEL_CHAT_CONTROL_INVALID' });
    expect(continued.message).toMatch(/^Invalid continue request: scenario\.tokenBudget\.contextTokens: /);
    const details = (continued as unknown as { details: { issues: string[] } }).details;
    expect(details.issues).toHaveLength(1);
    expect(continued.message).toBe(`Invalid continue request: ${details.issues[0]}`);

    // The same formatter as a plain zod parse of the same value (one rule for every package).
    const shape = z.object({ step: z.int().min(0) });
    const parsed = shape.safeParse({ step: -1 });
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(edit.message).toBe(`Invalid edit-turn request: ${formatIssues(parsed.error, { root: 'request' })}`);
  });
});
