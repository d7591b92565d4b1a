import { describe, expect, it } from 'vitest';
import { createHarness } from '../harness/create-harness.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../ports/chat-model.js';
import type { SessionLog } from '../ports/session-log.js';
import type { SessionTurnLock } from '../ports/session-turn-lock.js';
import { codeOf, withFixture } from './contract-helpers.js';

/** Two handles on ONE store (two processes' views of it, as far as one test process can have them). */
export interface SessionTurnLockFixture {
  readonly first: SessionLog & SessionTurnLock;
  /** Another handle on the same store: a second log object, pool or connection (may be `first` for in-memory stores). */
  readonly second: SessionLog & SessionTurnLock;
  readonly cleanup?: () => Promise<void>;
}

/** A promise with its resolver, to hold a lock until the test lets go. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * Takes the session's lock on `lock` and keeps it until `release()` (which resolves once the
 * holder's work has settled).
 */
async function holding(lock: SessionTurnLock, sessionId: string): Promise<{ release: () => Promise<void> }> {
  const held = gate();
  const entered = gate();
  const holder = lock.lockSessionTurn(sessionId, async () => {
    entered.open();
    await held.opened;
  });
  await entered.opened;
  return {
    release: async () => {
      held.open();
      await holder;
    },
  };
}

/** Lets other work (a waiter polling a lock) get going before the test checks it still waits. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

/** An actor that answers with how many player messages it was sent: a turn that missed the one before it shows a repeated count. */
function countingActor(): ChatModel {
  return {
    id: 'counting',
    async generate(request: ChatRequest): Promise<ChatResponse> {
      // Long enough for a racing turn to read the same history if nothing serialised them.
      await new Promise((resolve) => setTimeout(resolve, 25));
      return { text: `saw ${request.messages.filter((message) => message.role === 'user').length}` };
    },
  };
}

/**
 * The behaviour every {@link SessionTurnLock} must have, and that harnesses sharing the store
 * through it serialise a session's turns.
 * @param name - label for the describe block
 * @param make - two handles on a fresh, empty store per test
 */
export function describeSessionTurnLockContract(name: string, make: () => Promise<SessionTurnLockFixture>): void {
  describe(`SessionTurnLock contract: ${name}`, () => {
    it('runs one holder per session at a time, across handles, and hands over when work settles', () =>
      withFixture(make, async ({ first, second }) => {
        const order: string[] = [];
        const held = gate();
        const entered = gate();
        const a = first.lockSessionTurn('s1', async () => {
          order.push('a in');
          entered.open();
          await held.opened;
          order.push('a out');
          return 'a';
        });
        await entered.opened;
        const b = second.lockSessionTurn('s1', async () => {
          order.push('b in');
          return 'b';
        });
        // Its failure is read at the end: caught now so it never counts as unhandled meanwhile.
        const c = first
          .lockSessionTurn('s1', async () => {
            order.push('c in');
            throw new Error('c failed');
          })
          .then(
            () => 'resolved',
            (error: unknown) => (error as Error).message,
          );
        await settle();
        expect(order).toEqual(['a in']);
        held.open();
        expect(await a).toBe('a');
        expect(await b).toBe('b');
        expect(await c).toBe('c failed');
        // A holder that threw released the lock like one that returned.
        expect(await second.lockSessionTurn('s1', async () => 'after')).toBe('after');
        expect(order.slice(0, 2)).toEqual(['a in', 'a out']);
        expect([...order.slice(2)].sort()).toEqual(['b in', 'c in']);
      }));

    it('never makes one session wait for another', () =>
      withFixture(make, async ({ first, second }) => {
        const held = await holding(first, 's1');
        expect(await second.lockSessionTurn('s2', async () => 'other session ran')).toBe('other session ran');
        await held.release();
      }));

    it('a cancelled wait rejects with the signal reason, runs nothing, and leaves the lock usable', () =>
      withFixture(make, async ({ first, second }) => {
        const held = await holding(first, 's1');
        const controller = new AbortController();
        let ran = false;
        const waiting = second.lockSessionTurn(
          's1',
          async () => {
            ran = true;
          },
          { signal: controller.signal },
        );
        await settle();
        const reason = new Error('player cancelled');
        controller.abort(reason);
        await expect(waiting).rejects.toBe(reason);
        const gone = new AbortController();
        gone.abort(reason);
        await expect(second.lockSessionTurn('s2', async () => 'never', { signal: gone.signal })).rejects.toBe(reason);
        await held.release();
        expect(ran).toBe(false);
        expect(await second.lockSessionTurn('s1', async () => 'next')).toBe('next');
      }));

    it('holds the lock for the holder right up to the end, and rejects invalid session ids', () =>
      withFixture(make, async ({ first }) => {
        await first.lockSessionTurn('s1', (turn) => turn.assertHeld('a test commit'));
        expect(await codeOf(first.lockSessionTurn('../s1', async () => undefined))).toBe('SESSION_INVALID_ID');
        expect(await codeOf(first.lockSessionTurn('con', async () => undefined))).toBe('SESSION_INVALID_ID');
      }));

    it('serialises the turns of harnesses sharing the store: every turn reads the one before it', () =>
      withFixture(make, async ({ first, second }) => {
        const harnesses = await Promise.all([first, second].map((sessionLog) => createHarness({ model: countingActor(), sessionLog })));
        const turns = harnesses.flatMap((harness, which) => [0, 1, 2].map((n) => harness.runTurn({ sessionId: 'race', text: `${which}-${n}` })));
        const replies = (await Promise.all(turns)).map((turn) => turn.reply);
        expect([...replies].sort()).toEqual(['saw 1', 'saw 2', 'saw 3', 'saw 4', 'saw 5', 'saw 6']);
        await Promise.all(harnesses.map((harness) => harness.close()));
      }));
  });
}
