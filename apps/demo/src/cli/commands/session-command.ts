import { KernelStorageError } from '@troupe/kernel';
import { DioSessionRequirementsToken } from '@troupe/plugin-dio';
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { copyChat } from '../../branch/branch-session.js';
import { type CliContext, type GlobalOptions, withDemo } from '../context.js';

/** Registers `session list | export <id> [--out FILE] | branch <id> --at <eventId> --to <newId>`. */
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
    .description('copy a session up to an event into a new session')
    .requiredOption('--at <eventId>', 'last event to keep (e.g. e12)')
    .requiredOption('--to <newId>', 'id of the new session')
    .action((id: string, options: { at: string; to: string }) =>
      withDemo(context, program.opts<GlobalOptions>(), async (demo) => {
        // A chat's branch is a chat too (same character, preset and persona); its id must be free as a chat's.
        const chat = await demo.library.chats.find(id);
        if (chat && (await demo.library.chats.find(options.to))) throw new KernelStorageError('SESSION_EXISTS', `Session "${options.to}" already exists (as a chat)`);
        await demo.storage.sessions.branch(id, options.at, options.to);
        context.output.line(`branched ${id} at ${options.at} into ${options.to}`);
        if (chat) {
          const copy = await copyChat(demo, chat, options.to);
          context.output.line(`chat ${copy.id}: ${copy.title} (play it with: chat --session ${copy.id})`);
        }
        // The branch keeps the lasting requirements its branch point had (the DIO conversation is forked).
        const forks = await demo.harness.resolve(DioSessionRequirementsToken).forkForBranch({ parentSessionId: id, sessionId: options.to, userId: demo.dio.userId, authorization: demo.dio.authorization });
        for (const fork of forks) {
          if (fork.status === 'forked') context.output.line(`DIO requirements for ${fork.targetPromptId}: ${fork.requirements} carried over`);
          else context.output.line(`DIO requirements for ${fork.targetPromptId} not carried over (${fork.reason}: ${fork.message})`);
        }
      }),
    );
}
