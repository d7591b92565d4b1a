import { foldCommittedTurns, formatIssues, type SessionEvent } from '@troupe/kernel';
import { Hono } from 'hono';
import * as z from 'zod';
import type { Demo } from '../compose.js';
import { actorTokenizer, messageTokens } from '../prompt/message-tokens.js';
import { ACTOR_PROMPT_EVENT } from '../prompt/prompt-itemization-plugin.js';
import type { ActorPromptData, PromptItemization, TokenCounts } from '../wire/prompt.js';
import { ApiError } from './api-error.js';
import { param, SessionIdSchema, TurnIdSchema } from './validation.js';

const StepQuerySchema = z.coerce.number().int().min(0).max(1_000_000);
// The recorded payload is read back from the log (a hand-edited import may hold anything).
const ActorPromptSchema = z.object({
  blocks: z.array(
    z.object({
      index: z.number(),
      role: z.string(),
      name: z.string().optional(),
      source: z.string(),
      tokens: z.number(),
      chars: z.number(),
      preview: z.string(),
      truncated: z.boolean(),
    }),
  ),
  totalTokens: z.number(),
  contextTokens: z.number(),
  responseTokens: z.number(),
  promptTokens: z.number(),
  tokenizer: z.object({ id: z.string(), exact: z.boolean() }),
  calibration: z.number(),
});

/**
 * Token counts and SillyTavern's prompt itemization under `/api/sessions`:
 * - `GET …/:sessionId/token-counts` — tokens of every visible message (input and reply), counted
 *   by the actor model's tokenizer (or the kernel's estimate);
 * - `GET …/:sessionId/turns/:turnId/prompt[?step=n]` — the actor's prompt of that turn's kept
 *   step (or step `n`) as it was sent: each message with its source, role, name and tokens,
 *   recorded when the step ran (`demo/actor-prompt`), so later settings changes do not alter it.
 * Errors: 404 `SESSION_NOT_FOUND`, `KERNEL_TURN_NOT_FOUND`, `KERNEL_STEP_NOT_FOUND`,
 * `PROMPT_NOT_RECORDED` (a step played before the recording existed); 400 `INVALID_REQUEST`.
 * @param demo - the composed demo
 * @returns the routes (mounted at `/api/sessions`)
 */
export function promptRoutes(demo: Demo): Hono {
  const app = new Hono();
  const log = demo.storage.sessions;
  const events = async (sessionId: string): Promise<readonly SessionEvent[]> => {
    const read = await log.read(sessionId);
    if (read.length === 0) throw new ApiError(404, 'SESSION_NOT_FOUND', `There is no session "${sessionId}" yet: play a turn to start it`);
    return read;
  };

  app.get('/:sessionId/token-counts', async (c) => {
    const sessionId = param(c, 'sessionId', SessionIdSchema);
    const tokenizer = actorTokenizer(demo.models);
    const turns = foldCommittedTurns(await events(sessionId)).values();
    return c.json({ sessionId, tokenizer: { id: tokenizer.id, exact: tokenizer.exact }, messages: messageTokens(turns, tokenizer) } satisfies TokenCounts);
  });

  app.get('/:sessionId/turns/:turnId/prompt', async (c) => {
    const sessionId = param(c, 'sessionId', SessionIdSchema);
    const turnId = param(c, 'turnId', TurnIdSchema);
    const stepRaw = c.req.query('step');
    const stepParsed = stepRaw === undefined ? undefined : StepQuerySchema.safeParse(stepRaw);
    if (stepParsed && !stepParsed.success) throw new ApiError(400, 'INVALID_REQUEST', `step: ${formatIssues(stepParsed.error, { root: 'step' })}`);
    const all = await events(sessionId);
    const turn = foldCommittedTurns(all).get(turnId);
    if (!turn) throw new ApiError(404, 'KERNEL_TURN_NOT_FOUND', `Session "${sessionId}" has no visible turn "${turnId}"`);
    const step = stepParsed?.data ?? turn.step;
    if (!turn.steps.some((candidate) => candidate.step === step)) {
      throw new ApiError(404, 'KERNEL_STEP_NOT_FOUND', `Turn "${turnId}" has no committed step ${step} (it has ${turn.steps.map((s) => s.step).join(', ')})`);
    }
    const recorded = all.findLast((event) => event.type === ACTOR_PROMPT_EVENT && event.turnId === turnId && event.step === step);
    const data = ActorPromptSchema.safeParse(recorded?.data);
    if (!data.success) throw new ApiError(404, 'PROMPT_NOT_RECORDED', `The actor prompt of turn "${turnId}" step ${step} was not recorded (played before prompt itemization existed, or by another app)`);
    return c.json({ sessionId, turnId, step, kept: step === turn.step, ...(data.data as ActorPromptData) } satisfies PromptItemization);
  });

  return app;
}
