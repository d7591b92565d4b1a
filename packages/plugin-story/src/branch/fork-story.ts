import { randomBytes } from 'node:crypto';
import { type Clock, type SessionEvent, type SessionLog, systemClock, type TreeStore } from '@troupe/kernel';
import { validateTreeId } from '@troupe/kernel/storage';
import * as z from 'zod';
import { ResettledSchema, type SettleBlock, SettledSchema } from '../continuity/kept-step-plan.js';
import { rewriteBlocks } from '../continuity/rewrite-blocks.js';
import { STORY_EVENTS } from '../events.js';
import { readStoryWorkspaceSelection, selectionEvent } from '../selection.js';
import { WORKSPACE_FILES } from '../workspace/layout.js';

/** Input of {@link forkStoryForBranch}. */
export interface ForkStoryInput {
  readonly trees: TreeStore;
  readonly sessionLog: SessionLog;
  /** The session branched from. */
  readonly parentSessionId: string;
  /** The new session, already made by `SessionLog.branch` (its selection says which workspace to copy). */
  readonly sessionId: string;
  /** The copy's id (default: the workspace's id with `-b-` and six random hex digits, cut to fit). */
  readonly workspaceId?: string;
  /** Times the events (default the system clock). */
  readonly clock?: Clock;
}

/** What {@link forkStoryForBranch} did. */
export type ForkStoryOutcome =
  | { readonly status: 'none' }
  | { readonly status: 'forked'; readonly from: string; readonly workspaceId: string; readonly droppedTurns: readonly string[] };

const NameSchema = z.object({ name: z.string() }).loose();

/**
 * Gives a branch of a session its own copy of the story workspace it has selected, so the two
 * chats stop writing into one `history.md`. The copy holds the workspace as it is now, minus the
 * settlement blocks of turns the parent settled and the branch does not have (the turns after the
 * branch point): `history.md`, the knowledge files and `proposals.md` then tell the branch's story
 * only. Its manifest's name is marked "(分支 branch)". The branch's log records
 * `agent-rp/story-workspace-forked` and selects the copy: from its next turn on, the branch plays
 * and settles into the copy, and its continuity record (swipes, edits, deletes of the turns it
 * shares with the parent) is kept in the copy — the parent's workspace is never written.
 * A branch with no workspace selected is left alone (`status: 'none'`).
 * @param input - the stores, the two sessions and optionally the copy's id
 * @returns the copy's id and the turns whose blocks were left out
 * @throws {KernelStorageError} TREE_EXISTS when the copy's id is taken, TREE_INVALID_ID, TREE_NOT_FOUND
 * (the selected workspace is gone), and the stores' errors; nothing is selected then
 */
export async function forkStoryForBranch(input: ForkStoryInput): Promise<ForkStoryOutcome> {
  const { trees, sessionLog, parentSessionId, sessionId } = input;
  const from = await readStoryWorkspaceSelection((key) => sessionLog.findLatest(sessionId, key));
  if (from === undefined) return { status: 'none' };
  const workspaceId = input.workspaceId ?? copyId(from);
  validateTreeId(workspaceId);
  const [parentEvents, branchEvents, snapshot] = await Promise.all([sessionLog.read(parentSessionId), sessionLog.read(sessionId), trees.read(from)]);
  const branchTurns = new Set(settledBlocks(branchEvents, from).map((block) => block.turnId));
  const dropped = settledBlocks(parentEvents, from).filter((block) => !branchTurns.has(block.turnId));
  const files: Record<string, string> = { ...snapshot.files, ...rewriteBlocks(snapshot.files, dropped.map((block) => ({ candidates: [block], desired: undefined }))) };
  const manifest = files[WORKSPACE_FILES.manifest];
  if (manifest !== undefined) files[WORKSPACE_FILES.manifest] = renamed(manifest);
  await trees.create(workspaceId, files);
  const at = new Date((input.clock ?? systemClock).now()).toISOString();
  const droppedTurns = [...new Set(dropped.map((block) => block.turnId))];
  await sessionLog.append(sessionId, [
    { turnId: '', step: 0, type: STORY_EVENTS.workspaceForked, ignorable: true, at, data: { from, to: workspaceId, droppedTurns } },
    selectionEvent(workspaceId, at),
  ]);
  return { status: 'forked', from, workspaceId, droppedTurns };
}

/** Every settlement block a session's log records for a workspace, with its turn. */
function settledBlocks(events: readonly SessionEvent[], workspaceId: string): (SettleBlock & { readonly turnId: string })[] {
  const blocks: (SettleBlock & { readonly turnId: string })[] = [];
  for (const event of events) {
    if (event.type === STORY_EVENTS.settled) {
      const data = SettledSchema.safeParse(event.data);
      if (data.success && data.data.workspaceId === workspaceId) blocks.push({ turnId: event.turnId, marker: data.data.marker, appends: data.data.appends });
    } else if (event.type === STORY_EVENTS.resettled) {
      const data = ResettledSchema.safeParse(event.data);
      if (data.success && data.data.workspaceId === workspaceId) blocks.push({ turnId: data.data.turnId, marker: data.data.marker, appends: data.data.appends });
    }
  }
  return blocks;
}

/** The manifest with its name marked as a branch's (left as is when it is not the JSON it should be). */
function renamed(manifest: string): string {
  let json: unknown;
  try {
    json = JSON.parse(manifest);
  } catch {
    return manifest;
  }
  const parsed = NameSchema.safeParse(json);
  if (!parsed.success) return manifest;
  return `${JSON.stringify({ ...parsed.data, name: `${parsed.data.name} (分支 branch)`.slice(0, 200) }, null, 2)}\n`;
}

/** `<id>-b-<6 hex>`, the id cut so the whole fits the 64 characters of a tree id. */
function copyId(from: string): string {
  return `${from.slice(0, 64 - 9)}-b-${randomBytes(3).toString('hex')}`;
}
