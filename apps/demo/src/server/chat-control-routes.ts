import { Hono } from 'hono';
import * as z from 'zod';
import type { Demo } from '../compose.js';
import { jsonBody, param, SessionIdSchema, TurnIdSchema } from './validation.js';

const SelectSchema = z.object({ step: z.int().min(0) }).strict();
const EditSchema = z.object({ step: z.int().min(0).optional(), input: z.string().optional(), reply: z.string().optional() }).strict();

/**
 * The chat controls under `/api/sessions`: swipe (`PUT …/turns/:turnId/step`), edit
 * (`PATCH …/turns/:turnId`) and delete-from (`DELETE …/turns/:turnId`: this turn and every later
 * one). Each appends a kernel event through the harness, so the next turn's actor reads the result;
 * bad requests answer with the kernel's codes (400 `KERNEL_CHAT_CONTROL_INVALID`, 404
 * `KERNEL_TURN_NOT_FOUND` / `KERNEL_STEP_NOT_FOUND`).
 * @param demo - the composed demo
 * @returns the routes (mounted at `/api/sessions`)
 */
export function chatControlRoutes(demo: Demo): Hono {
  const app = new Hono();

  app.put('/:sessionId/turns/:turnId/step', async (c) => {
    const sessionId = param(c, 'sessionId', SessionIdSchema);
    const turnId = param(c, 'turnId', TurnIdSchema);
    const { step } = await jsonBody(c, SelectSchema);
    return c.json({ sessionId, turn: await demo.harness.selectStep({ sessionId, turnId, step }) });
  });

  app.patch('/:sessionId/turns/:turnId', async (c) => {
    const sessionId = param(c, 'sessionId', SessionIdSchema);
    const turnId = param(c, 'turnId', TurnIdSchema);
    const edit = await jsonBody(c, EditSchema);
    return c.json({ sessionId, turn: await demo.harness.editTurn({ sessionId, turnId, ...edit }) });
  });

  app.delete('/:sessionId/turns/:turnId', async (c) => {
    const sessionId = param(c, 'sessionId', SessionIdSchema);
    const fromTurnId = param(c, 'turnId', TurnIdSchema);
    return c.json({ sessionId, removed: await demo.harness.removeTurns({ sessionId, fromTurnId }) });
  });

  return app;
}
