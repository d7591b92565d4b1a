import * as z from 'zod';
import { KernelError } from '../errors.js';
import { formatIssues } from '../errors/format-issues.js';
import type { Clock } from '../ports/clock.js';
import type { NewSessionEvent, SessionLog } from '../ports/session-log.js';
import { CHAT_CONTROL_KEY, STEP_SELECTED, TURN_EDITED, type TurnEditedData, TURNS_REMOVED } from './chat-control-events.js';
import type { HistoryCache } from './history-cache.js';
import type { CommittedTurnRecord } from './session-history.js';
import { MAX_INPUT_LENGTH, TurnInputSchema } from './turn-input.js';

/** What the chat controls need from the harness. */
export interface ChatControlServices {
  readonly sessionLog: SessionLog;
  readonly histories: HistoryCache;
  readonly clock: Clock;
}

const sessionId = TurnInputSchema.shape.sessionId;
const turnId = TurnInputSchema.shape.turnId.unwrap();
const step = z.int().min(0);

/** Schema of {@link SelectStepRequest}. */
export const SelectStepRequestSchema = z.object({ sessionId, turnId, step }).strict();
/** Which step of a committed turn to keep (a swipe). */
export type SelectStepRequest = z.infer<typeof SelectStepRequestSchema>;

/** Schema of {@link EditTurnRequest}. */
export const EditTurnRequestSchema = z
  .object({
    sessionId,
    turnId,
    /** The step to edit; default: the kept step. */
    step: step.optional(),
    input: z.string().min(1, 'must not be empty').max(MAX_INPUT_LENGTH).optional(),
    reply: z.string().max(10_000_000).optional(),
  })
  .strict()
  .refine((request) => request.input !== undefined || request.reply !== undefined, { message: 'give input, reply or both' });
/** A new visible input and/or reply for a committed step. */
export type EditTurnRequest = z.infer<typeof EditTurnRequestSchema>;

/** Schema of {@link RemoveTurnsRequest}. */
export const RemoveTurnsRequestSchema = z.object({ sessionId, fromTurnId: turnId }).strict();
/** Remove `fromTurnId` and every turn after it. */
export type RemoveTurnsRequest = z.infer<typeof RemoveTurnsRequestSchema>;

/**
 * Validates a chat-control request (select, edit, remove, continue) with its schema.
 * @param schema - the request's schema
 * @param request - what the caller passed
 * @param what - the control, for the message (`edit`)
 * @returns the parsed request
 * @throws {KernelError} KERNEL_CHAT_CONTROL_INVALID naming every bad field (the kernel's `formatIssues`)
 */
export function parseChatControlRequest<T>(schema: z.ZodType<T>, request: unknown, what: string): T {
  const parsed = schema.safeParse(request);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => formatIssues([issue], { root: 'request' }));
  throw new KernelError('KERNEL_CHAT_CONTROL_INVALID', `Invalid ${what} request: ${formatIssues(parsed.error, { root: 'request' })}`, { details: { issues } });
}

async function visibleTurn(services: ChatControlServices, session: string, id: string): Promise<CommittedTurnRecord> {
  const turn = (await services.histories.turns(session)).get(id);
  if (!turn) throw new KernelError('KERNEL_TURN_NOT_FOUND', `Session "${session}" has no visible turn "${id}" (never committed, or removed)`, { details: { sessionId: session, turnId: id } });
  return turn;
}

function requireStep(turn: CommittedTurnRecord, wanted: number): void {
  if (turn.steps.some((candidate) => candidate.step === wanted)) return;
  throw new KernelError('KERNEL_STEP_NOT_FOUND', `Turn "${turn.turnId}" has no committed step ${wanted} (it has ${turn.steps.map((s) => s.step).join(', ')})`, {
    details: { turnId: turn.turnId, step: wanted, steps: turn.steps.map((s) => s.step) },
  });
}

async function appendAndFold(services: ChatControlServices, session: string, event: NewSessionEvent, id: string): Promise<CommittedTurnRecord | undefined> {
  await services.sessionLog.append(session, [event]);
  return (await services.histories.turns(session)).get(id);
}

function controlEvent(services: ChatControlServices, type: string, id: string, atStep: number, data: unknown): NewSessionEvent {
  return { type, turnId: id, step: atStep, ignorable: false, at: new Date(services.clock.now()).toISOString(), key: CHAT_CONTROL_KEY, data };
}

/**
 * Appends `kernel/step-selected`: the turn's visible reply becomes that step's.
 * @returns the turn as visible afterwards
 * @throws {KernelError} KERNEL_CHAT_CONTROL_INVALID, KERNEL_TURN_NOT_FOUND, KERNEL_STEP_NOT_FOUND
 */
export async function selectStep(services: ChatControlServices, raw: unknown): Promise<CommittedTurnRecord> {
  const request = parseChatControlRequest(SelectStepRequestSchema, raw, 'select-step');
  const turn = await visibleTurn(services, request.sessionId, request.turnId);
  requireStep(turn, request.step);
  const event = controlEvent(services, STEP_SELECTED, request.turnId, request.step, { step: request.step });
  return (await appendAndFold(services, request.sessionId, event, request.turnId)) ?? turn;
}

/**
 * Appends `kernel/turn-edited`: the step's visible input/reply change; the committed original
 * stays in the log.
 * @returns the turn as visible afterwards
 * @throws {KernelError} KERNEL_CHAT_CONTROL_INVALID, KERNEL_TURN_NOT_FOUND, KERNEL_STEP_NOT_FOUND
 */
export async function editTurn(services: ChatControlServices, raw: unknown): Promise<CommittedTurnRecord> {
  const request = parseChatControlRequest(EditTurnRequestSchema, raw, 'edit-turn');
  const turn = await visibleTurn(services, request.sessionId, request.turnId);
  const target = request.step ?? turn.step;
  requireStep(turn, target);
  const data: TurnEditedData = {
    step: target,
    ...(request.input !== undefined ? { input: request.input } : {}),
    ...(request.reply !== undefined ? { reply: request.reply } : {}),
  };
  const event = controlEvent(services, TURN_EDITED, request.turnId, target, data);
  return (await appendAndFold(services, request.sessionId, event, request.turnId)) ?? turn;
}

/**
 * Appends `kernel/turns-removed`: `fromTurnId` and every later turn leave the visible history.
 * @returns the ids of the removed turns, in order
 * @throws {KernelError} KERNEL_CHAT_CONTROL_INVALID, KERNEL_TURN_NOT_FOUND
 */
export async function removeTurns(services: ChatControlServices, raw: unknown): Promise<string[]> {
  const request = parseChatControlRequest(RemoveTurnsRequestSchema, raw, 'remove-turns');
  await visibleTurn(services, request.sessionId, request.fromTurnId);
  const ids = [...(await services.histories.turns(request.sessionId)).keys()];
  const removed = ids.slice(ids.indexOf(request.fromTurnId));
  await appendAndFold(services, request.sessionId, controlEvent(services, TURNS_REMOVED, request.fromTurnId, 0, { fromTurnId: request.fromTurnId }), request.fromTurnId);
  return removed;
}
