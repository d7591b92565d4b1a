import type { SessionEvent, TurnContext } from '@troupe/kernel';
import { DIO_EVENTS } from './events.js';

/** What a later step of a turn that stated a requirement must play with. */
export type PromptBeforeOwnRequirement =
  | { readonly kind: 'none' }
  | { readonly kind: 'applied'; readonly versionId: string; readonly sourceVersionId: string | undefined; readonly compiledPromptSha256: string };

const LOOKUP_EVENTS: readonly string[] = [DIO_EVENTS.activePromptApplied, DIO_EVENTS.activePromptNone, DIO_EVENTS.activePromptSkipped, DIO_EVENTS.activePromptDegraded];
const STATED_EVENTS: readonly string[] = [DIO_EVENTS.scheduled, DIO_EVENTS.schedulePending];

/**
 * For a regeneration (step > 0): when an earlier step of this turn stated a requirement
 * (`dio/scheduled` or `dio/schedule-pending` of this turn's request id), the prompt the turn's
 * first step played — none (its lookup found none, was skipped or degraded) or the version it
 * applied. The turn that states a requirement never sees its own change, in any of its steps.
 * @param ctx - the turn
 * @param requestId - this turn's DIO request id
 * @returns what to play, or `undefined` when the turn stated no requirement before (look up as usual)
 */
export async function promptBeforeOwnRequirement(ctx: TurnContext, requestId: string): Promise<PromptBeforeOwnRequirement | undefined> {
  if (ctx.step === 0) return undefined;
  const events = (await ctx.events.read()).filter((event) => event.turnId === ctx.turnId && event.step < ctx.step);
  const stated = events.some((event) => STATED_EVENTS.includes(event.type) && (event.data as { requestId?: unknown } | null)?.requestId === requestId);
  if (!stated) return undefined;
  const first: SessionEvent | undefined = events.find((event) => LOOKUP_EVENTS.includes(event.type));
  const data = (first?.data ?? {}) as Record<string, unknown>;
  if (first?.type !== DIO_EVENTS.activePromptApplied || typeof data.versionId !== 'string' || typeof data.compiledPromptSha256 !== 'string') return { kind: 'none' };
  return { kind: 'applied', versionId: data.versionId, sourceVersionId: typeof data.sourceVersionId === 'string' ? data.sourceVersionId : undefined, compiledPromptSha256: data.compiledPromptSha256 };
}
