import type { ChatMessage, TurnResult } from '@troupe/kernel';
import { sha256Hex } from '@troupe/kernel/util';
import { locateDioSlot, type Preset } from '@troupe/plugin-actor-assembler';

/** What the showcase checks about the last turn's actor prompt. */
export interface CompiledPromptProof {
  /** The text at the preset's `roleplay` position of `prepared.history`, if any. */
  readonly slot: string | undefined;
  /** SHA-256 of {@link slot} (hex), if any. */
  readonly slotSha256: string | undefined;
  /** The compiled prompt's SHA-256 the finished DIO task reported (`dio/task-terminal`). */
  readonly taskSha256: string | undefined;
  /** The SHA-256 the turn's lookup applied (`dio/active-prompt-applied`). */
  readonly appliedSha256: string | undefined;
  /** True when the slot's hash equals both the task's and the applied prompt's hash. */
  readonly carriesCompiledPrompt: boolean;
}

/**
 * Index in `prepared.history` of the preset's `roleplay` prompt: the assembler emits one message
 * per enabled, non-empty, non-marker prompt before the history marker, in preset order, so the
 * slot's position is the number of such prompts before it. Throws when the slot sits after a
 * marker, where the position depends on the history length.
 * @param preset - the actor preset
 * @returns the message index of the DIO slot
 * @throws {AssemblerError} DIO_NO_SLOT and the other slot-rule codes of `locateDioSlot`
 * @throws {Error} DEMO_SLOT_UNLOCATABLE when a marker precedes the slot
 */
export function roleplaySlotPosition(preset: Preset): number {
  const slot = locateDioSlot(preset.prompts);
  const before = preset.prompts.slice(0, slot.index);
  if (before.some((prompt) => prompt.marker !== undefined)) {
    throw Object.assign(new Error('The roleplay prompt follows a marker: its message index depends on the history'), { code: 'DEMO_SLOT_UNLOCATABLE' });
  }
  return before.filter((prompt) => prompt.enabled !== false && prompt.content.trim() !== '').length;
}

/**
 * Proves (by hash, not by wording) that a turn's actor prompt carries the DIO compiled prompt:
 * the message at the preset's `roleplay` position hashes to the SHA-256 that the DIO task
 * reported when it finished and that the turn's lookup applied.
 * @param preset - the actor preset the turn was assembled with
 * @param history - the turn's `prepared.history`
 * @param turn - the turn (its `dio/active-prompt-applied` event)
 * @param taskSha256 - `compiledPromptSha256` from the task's `dio/task-terminal` event
 * @returns the hashes and whether they agree
 */
export function proveCompiledPrompt(preset: Preset, history: readonly ChatMessage[], turn: TurnResult | undefined, taskSha256: string | undefined): CompiledPromptProof {
  const slot = history[roleplaySlotPosition(preset)]?.content;
  const slotSha256 = slot === undefined ? undefined : sha256Hex(slot);
  const applied = turn?.events.find((event) => event.type === 'dio/active-prompt-applied');
  const appliedSha256 = (applied?.data as { compiledPromptSha256?: unknown } | undefined)?.compiledPromptSha256;
  const appliedHash = typeof appliedSha256 === 'string' ? appliedSha256 : undefined;
  const carriesCompiledPrompt = slotSha256 !== undefined && taskSha256 !== undefined && slotSha256 === taskSha256 && appliedHash === taskSha256;
  return { slot, slotSha256, taskSha256, appliedSha256: appliedHash, carriesCompiledPrompt };
}
