import { KernelStorageError } from '@troupe/kernel';
import { DioSessionRequirementsToken, type ForkOutcome } from '@troupe/plugin-dio';
import type { ForkStoryOutcome } from '@troupe/plugin-story';
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { branchSession, copyChat, forkStory } from '../../branch/branch-session.js';
import type { Demo } from '../../compose.js';
import { invalidOption } from '../chat-target.js';
import { type CliContext, type GlobalOptions, withDemo } from '../context.js';

/** Registers `session list | export <id> [--out FILE] | branch <id> (--at <eventId> --to <newId> | --from-turn <turnId> [--to <newId>])`. */
export function registerSessionCommand(program: Command, context: CliContext): void {
  const session = program.command('session').description('list, export and branch sessions');
  session
    .command('list')
    .description('list sessions')
    .action(() =>
      withDemo(context, program.opts<GlobalOptions>(), async (demo) => {
        const ids = await demo.storage.sessions.list();
        if (ids.length === 0) context.output.line('(no sessions yet — run `pnpm demo` or `pnpm demo turn`)');
        for (const id of ids) context.output.line(id);
      }),
    );
  session
    .command('export <id>')
    .description('print a session as JSON Lines (or write it to --out)')
    .option('--out <file>', 'write to this file instead of stdout')
    .action((id: string, options: { out?: string }) =>
      withDemo(context, program.opts<GlobalOptions>(), async (demo) => {
        const jsonl = await demo.storage.sessions.export(id);
        if (options.out) {
          await writeFile(options.out, jsonl, 'utf8');
          context.output.line(`wrote ${jsonl.split('\n').filter(Boolean).length} events to ${options.out}`);
        } else {
          context.output.line(jsonl.trimEnd());
        }
      }),
    );
  session
    .command('branch <id>')
    .description('copy a session into a new one: up to an event (--at), or up to an exchange as the chat shows it now (--from-turn)')
    .option('--at <eventId>', 'last event to keep (e.g. e12); needs --to')
    .option('--from-turn <turnId>', 'the exchange to branch from: the new session shows the chat up to it as it is shown now (later swipes and edits applied, later turns left out)')
    .option('--to <newId>', 'id of the new session (with --from-turn, default: a fresh one)')
    .action((id: string, options: { at?: string; fromTurn?: string; to?: string }) =>
      withDemo(context, program.opts<GlobalOptions>(), async (demo) => {
        if ((options.at === undefined) === (options.fromTurn === undefined)) throw invalidOption('Give either --at EVENT or --from-turn TURN (one of them)');
        const forks = options.fromTurn === undefined ? await branchAtEvent(demo, context, id, options.at ?? '', options.to) : await branchFromTurn(demo, context, id, options.fromTurn, options.to);
        for (const fork of forks) {
          if (fork.status === 'forked') context.output.line(`DIO requirements for ${fork.targetPromptId}: ${fork.requirements} carried over`);
          else context.output.line(`DIO requirements for ${fork.targetPromptId} not carried over (${fork.reason}: ${fork.message})`);
        }
      }),
    );
}

/** `--at`: the log up to that event; a selected story is copied for the branch, a chat's branch gets its own chat record, and the DIO conversations the branch point had are forked. */
async function branchAtEvent(demo: Demo, context: CliContext, id: string, at: string, to: string | undefined): Promise<readonly ForkOutcome[]> {
  if (to === undefined) throw invalidOption('--at needs --to NEW (the new session\'s id)');
  // A chat's branch is a chat too (same character, preset and persona); its id must be free as a chat's.
  const chat = await demo.library.chats.find(id);
  if (chat && (await demo.library.chats.find(to))) throw new KernelStorageError('SESSION_EXISTS', `Session "${to}" already exists (as a chat)`);
  await demo.storage.sessions.branch(id, at, to);
  context.output.line(`branched ${id} at ${at} into ${to}`);
  const story = await forkStory(demo, id, to);
  printStory(context, story);
  if (chat) {
    const copy = await copyChat(demo, chat, to, story.status === 'forked' ? story.workspaceId : chat.storyId);
    context.output.line(`chat ${copy.id}: ${copy.title} (play it with: chat --session ${copy.id})`);
  }
  // The branch keeps the lasting requirements its branch point had (the DIO conversation is forked).
  return demo.harness.resolve(DioSessionRequirementsToken).forkForBranch({ parentSessionId: id, sessionId: to, userId: demo.dio.userId, authorization: demo.dio.authorization });
}

/** `--from-turn`: what the web app's Branch button does (see `branchSession`). */
async function branchFromTurn(demo: Demo, context: CliContext, id: string, turnId: string, to: string | undefined): Promise<readonly ForkOutcome[]> {
  const branch = await branchSession(demo, { sessionId: id, turnId, ...(to === undefined ? {} : { to }) });
  context.output.line(`branched ${id} from turn ${turnId} into ${branch.sessionId} (${branch.exchanges.length} exchange${branch.exchanges.length === 1 ? '' : 's'})`);
  printStory(context, branch.story);
  if (branch.chat) context.output.line(`chat ${branch.chat.id}: ${branch.chat.title} (play it with: chat --session ${branch.chat.id})`);
  return branch.dio;
}

/** Says which copy of the story workspace the branch plays in, if any. */
function printStory(context: CliContext, story: ForkStoryOutcome): void {
  if (story.status === 'forked') context.output.line(`story ${story.workspaceId}: the branch's own copy of ${story.from} (${story.droppedTurns.length} later turn(s) left out of its record)`);
}
