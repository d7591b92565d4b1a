import { Hono } from 'hono';
import * as z from 'zod';
import { branchSession } from '../branch/branch-session.js';
import type { Demo } from '../compose.js';
import type { BranchView } from '../wire/chat.js';
import { revokeRequirementsOf } from './dio-turn-revocations.js';
import { chatMessages } from './session-view.js';
import { chatEvents } from './session-reads.js';
import { EditedReplySchema, jsonBody, param, PlayerLineSchema, SessionIdSchema, TurnIdSchema } from './validation.js';

const SelectSchema = z.object({ step: z.int().min(0) }).strict();
const BranchSchema = z.object({ to: SessionIdSchema.optional() }).strict();
const EditSchema = z.object({ step: z.int().min(0).optional(), input: PlayerLineSchema.optional(), reply: EditedReplySchema.optional() }).strict();

/**
 * The chat controls under `/api/sessions`: swipe (`PUT …/turns/:turnId/step`), edit
 * (`PATCH …/turns/:turnId`) and delete-from (`DELETE …/turns/:turnId`: this turn and every later
 * one). Each appends a kernel event through the harness, so the next turn's actor reads the result;
 * bad requests answer with the kernel's codes (400 `KERNEL_CHAT_CONTROL_INVALID`, 404
 * `KERNEL_TURN_NOT_FOUND` / `KERNEL_STEP_NOT_FOUND`). Branch (`POST …/turns/:turnId/branch`, body
 * `{}` or `{to}`) makes a new session holding the chat up to and including that exchange, as shown
 * now (see `branchSession`): 201 with the new `sessionId`, its `messages`, `chatId` (a library
 * chat's copy, else null), `storyId` (its copy of the story workspace, else null) and the `dio`
 * fork outcomes; 409 `SESSION_EXISTS` when `to` is taken. Deleting turns, or editing a turn's line,
 * revokes the lasting DIO requirements those lines stated (`dio: {revoked, failed?}` in the answer).
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
    const before = edit.input === undefined ? undefined : chatMessages(await chatEvents(demo.storage.sessions, sessionId)).find((message) => message.turnId === turnId)?.input;
    const turn = await demo.harness.editTurn({ sessionId, turnId, ...edit });
    // A rewritten line no longer states what it stated: its lasting requirement goes with it.
    const dio = edit.input !== undefined && before !== undefined && turn.input !== before ? await revokeRequirementsOf(demo, sessionId, [turnId]) : undefined;
    return c.json({ sessionId, turn, ...(dio === undefined ? {} : { dio }) });
  });

  app.post('/:sessionId/turns/:turnId/branch', async (c) => {
    const sessionId = param(c, 'sessionId', SessionIdSchema);
    const turnId = param(c, 'turnId', TurnIdSchema);
    const { to } = await jsonBody(c, BranchSchema);
    const branch = await branchSession(demo, { sessionId, turnId, ...(to === undefined ? {} : { to }) });
    const storyId = branch.story.status === 'forked' ? branch.story.workspaceId : null;
    const view: BranchView = { sessionId: branch.sessionId, from: sessionId, messages: branch.exchanges, chatId: branch.chat?.id ?? null, storyId, dio: branch.dio };
    return c.json(view, 201);
  });

  app.delete('/:sessionId/turns/:turnId', async (c) => {
    const sessionId = param(c, 'sessionId', SessionIdSchema);
    const fromTurnId = param(c, 'turnId', TurnIdSchema);
    const removed = await demo.harness.removeTurns({ sessionId, fromTurnId });
    // The requirements the deleted lines stated go with them (the chat is what is shown).
    const dio = await revokeRequirementsOf(demo, sessionId, removed);
    return c.json({ sessionId, removed, ...(dio === undefined ? {} : { dio }) });
  });

  return app;
}
