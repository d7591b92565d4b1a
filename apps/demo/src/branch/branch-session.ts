import { randomBytes } from 'node:crypto';
import { type CommittedTurnRecord, foldCommittedTurns, KernelError, KernelStorageError } from '@troupe/kernel';
import { validateSessionId, validateTreeId } from '@troupe/kernel/storage';
import { DioSessionRequirementsToken, type ForkOutcome } from '@troupe/plugin-dio';
import { type ForkStoryOutcome, forkStoryForBranch } from '@troupe/plugin-story';
import type { Demo } from '../compose.js';
import type { Chat } from '../library/chat-library.js';
import { branchPoint } from './branch-point.js';

/** What to branch: a session, the exchange to branch from, and optionally the new session's id. */
export interface BranchRequest {
  readonly sessionId: string;
  readonly turnId: string;
  /** The new session's id (default: a fresh `chat-…` for a library chat, else `branch-…`). */
  readonly to?: string;
}

/** A branch made by {@link branchSession}. */
export interface BranchOutcome {
  /** The new session. */
  readonly sessionId: string;
  /** Its exchanges: the parent's up to and including the chosen one, as the parent showed them. */
  readonly exchanges: readonly CommittedTurnRecord[];
  /** The new chat, when the parent was a library chat (same character, preset and persona; the story's copy). */
  readonly chat: Chat | undefined;
  /** The branch's own copy of the story workspace, when the session had one selected. */
  readonly story: ForkStoryOutcome;
  /** What happened to each DIO conversation the branch point had (forked, or why not). */
  readonly dio: readonly ForkOutcome[];
}

/**
 * Branches a session from one of its visible exchanges, as a SillyTavern player branches a chat
 * from a message: the new session holds the chat up to and including that exchange, exactly as
 * the player sees it now, and goes on independently; the parent is left as it is.
 * 1. The log is copied up to the start of the next visible exchange (see `branchPoint`): later
 *    turns, the DIO requirements they set and anything chosen after them stay out.
 * 2. Swipes and edits of the copied exchanges made after that point are applied to the branch
 *    through the harness (as `kernel/step-selected` / `kernel/turn-edited` events), so the branch
 *    shows each exchange with the step and text the parent shows.
 * 3. A story workspace the session has selected is copied for the branch (see
 *    `forkStoryForBranch`): without the parent's later turns in its record, and written by the
 *    branch alone from then on.
 * 4. A library chat gets its own chat record (same character, preset, persona and greeting, and
 *    the story's copy).
 * 5. The DIO conversations the branch point had are forked into the new session (a service that
 *    cannot fork leaves a `dio/fork-degraded` event; the branch stands either way).
 * Everything is checked before anything is written: a wrong turn or a taken id writes nothing,
 * and a step that fails later (a damaged story that cannot be copied) takes back what was made.
 * @param demo - the composed demo
 * @param request - session, exchange and (optionally) the new id
 * @returns the new session with its exchanges, chat and DIO outcome
 * @throws {KernelError} KERNEL_TURN_NOT_FOUND when the exchange is not visible in the session (or
 * the session has no events)
 * @throws {KernelStorageError} SESSION_EXISTS when `to` is taken (by a session or a chat),
 * SESSION_INVALID_ID / TREE_INVALID_ID when `to` cannot name a session (or a chat), and what the
 * session log throws
 */
export async function branchSession(demo: Demo, request: BranchRequest): Promise<BranchOutcome> {
  const log = demo.storage.sessions;
  const { sessionId, turnId } = request;
  const point = branchPoint(await log.read(sessionId), turnId);
  if (!point) throw new KernelError('KERNEL_TURN_NOT_FOUND', `Session "${sessionId}" has no visible turn "${turnId}" (never committed, or removed)`, { details: { sessionId, turnId } });
  const chat = await demo.library.chats.find(sessionId);
  const to = request.to ?? (chat ? `chat-${randomBytes(6).toString('hex')}` : `branch-${randomBytes(6).toString('hex')}`);
  // A chat's id is its session's id: it must suit both, and neither may be taken.
  validateSessionId(to);
  if (chat) validateTreeId(to);
  if ((await log.read(to)).length > 0 || (await demo.library.chats.find(to))) throw new KernelStorageError('SESSION_EXISTS', `Session "${to}" already exists`);

  await log.branch(sessionId, point.atEventId, to);
  // What the branch has made so far: a step that fails takes it all back, so a failed branch
  // leaves no half-made chat behind (a session without its chat record or its story copy).
  const made: { story?: string; chat?: boolean } = {};
  try {
    await showAsParent(demo, to, point.shown, point.copied);
    const story = await forkStory(demo, sessionId, to);
    if (story.status === 'forked') made.story = story.workspaceId;
    const branchChat = chat ? await copyChat(demo, chat, to, story.status === 'forked' ? story.workspaceId : chat.storyId) : undefined;
    made.chat = branchChat !== undefined;
    const dio = await demo.harness.resolve(DioSessionRequirementsToken).forkForBranch({ parentSessionId: sessionId, sessionId: to, userId: demo.dio.userId, authorization: demo.dio.authorization });
    return { sessionId: to, exchanges: [...foldCommittedTurns(await log.read(to)).values()], chat: branchChat, story, dio };
  } catch (error) {
    await undoBranch(demo, to, made);
    throw error;
  }
}

// Removes what a failed branch made; the first error stays the one the caller sees.
async function undoBranch(demo: Demo, sessionId: string, made: { readonly story?: string; readonly chat?: boolean }): Promise<void> {
  const quietly = (undo: () => Promise<unknown>) => undo().catch(() => undefined);
  if (made.chat) await quietly(() => demo.library.chats.delete(sessionId));
  if (made.story !== undefined) {
    const story = made.story;
    await quietly(() => demo.storage.trees.delete(story));
  }
  await quietly(() => demo.storage.sessions.delete(sessionId));
}

/** Brings each copied exchange to the step and text the parent shows (swipes and edits made after the cut). */
async function showAsParent(demo: Demo, sessionId: string, shown: readonly CommittedTurnRecord[], copied: ReadonlyMap<string, CommittedTurnRecord>): Promise<void> {
  for (const wanted of shown) {
    let turn = copied.get(wanted.turnId);
    // The kept step was committed after the cut (not possible through the app's controls): the branch keeps its own.
    if (!turn?.steps.some((step) => step.step === wanted.step)) continue;
    if (turn.step !== wanted.step) turn = await demo.harness.selectStep({ sessionId, turnId: wanted.turnId, step: wanted.step });
    const input = turn.input === wanted.input ? undefined : wanted.input;
    const reply = turn.reply === wanted.reply ? undefined : wanted.reply;
    if (input !== undefined || reply !== undefined) {
      await demo.harness.editTurn({ sessionId, turnId: wanted.turnId, step: wanted.step, ...(input === undefined ? {} : { input }), ...(reply === undefined ? {} : { reply }) });
    }
  }
}

/**
 * The branch's own copy of the story workspace it has selected (see `forkStoryForBranch`); a
 * selected workspace that is gone leaves the branch as it is (its turns report the missing story).
 * @param demo - the composed demo
 * @param parentSessionId - the session branched from
 * @param sessionId - the branch, already in the session log
 * @returns what was copied
 */
export async function forkStory(demo: Demo, parentSessionId: string, sessionId: string): Promise<ForkStoryOutcome> {
  try {
    return await forkStoryForBranch({ trees: demo.storage.trees, sessionLog: demo.storage.sessions, parentSessionId, sessionId });
  } catch (error) {
    if (KernelStorageError.isInstance(error) && error.code === 'TREE_NOT_FOUND') return { status: 'none' };
    throw error;
  }
}

/**
 * The chat record of a branch: the parent chat's character, preset, persona and greeting under the
 * branch's session id, its title marked as a branch. Without it a branched chat would be a plain
 * session, played by the example character.
 * @param demo - the composed demo
 * @param chat - the parent chat
 * @param sessionId - the branch's session id
 * @param storyId - the branch's story workspace (default the parent chat's)
 * @returns the new chat
 */
export async function copyChat(demo: Demo, chat: Chat, sessionId: string, storyId = chat.storyId): Promise<Chat> {
  const { title, characterId, presetId, personaId, greetingIndex, useCardPrompts } = chat;
  return demo.library.chats.create({ title: `${title} (分支 branch)`.slice(0, 256), characterId, presetId, personaId, storyId, greetingIndex, useCardPrompts }, sessionId);
}
