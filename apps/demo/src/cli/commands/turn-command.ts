import { selectStoryWorkspace } from '@troupe/plugin-story';
import type { Command } from 'commander';
import { chatNames } from '../../library/chat-setup.js';
import { chatFor } from '../chat-target.js';
import { type CliContext, type GlobalOptions, withDemo } from '../context.js';
import { turnProgress } from '../turn-progress.js';

/**
 * Registers `turn --session ID --text "…" [--card FILE | --character ID] [--story ID] [--json]`:
 * with a character (or in a session that is a library chat) the turn plays that character.
 * @param program - the root command
 * @param context - output and environment
 * @throws (when run) StoryError STORY_WORKSPACE_NOT_FOUND / STORY_INVALID_ID for a bad `--story`, KERNEL_TURN_INPUT_INVALID for a bad session id
 */
export function registerTurnCommand(program: Command, context: CliContext): void {
  program
    .command('turn')
    .description('play one turn in a session and print the reply')
    .requiredOption('--session <id>', 'session id (created on first use)')
    .requiredOption('--text <text>', "the player's input")
    .option('--card <file>', 'play this character card (imported into the library once); the session becomes its chat')
    .option('--character <id>', 'play this library character; the session becomes its chat')
    .option('--story <id>', 'enable this story workspace for the session first')
    .option('--json', 'print the result (reply, events, prepared messages) as JSON')
    .action(async (options: { session: string; text: string; card?: string; character?: string; story?: string; json?: boolean }) => {
      await withDemo(context, program.opts<GlobalOptions>(), async (demo) => {
        const chat = await chatFor(demo, { session: options.session, ...(options.card ? { card: options.card } : {}), ...(options.character ? { character: options.character } : {}) });
        const speaker = chat ? chatNames(await demo.library.setup(chat.id)).char : demo.characterName;
        if (options.story) {
          // Like the web route: a workspace that does not exist is STORY_WORKSPACE_NOT_FOUND
          // before anything is written to the session.
          await demo.workspaces.read(options.story);
          await selectStoryWorkspace(demo.storage.sessions, options.session, options.story);
        }
        const result = await demo.harness.runTurn(await demo.turnInputFor(options.session, options.text), {
          ...(options.json ? {} : { onEvent: turnProgress(context.output) }),
        });
        context.output.clearStatus();
        if (options.json) {
          const { turnId, sessionId, step, reply, prepared, events, postReviewErrors } = result;
          context.output.line(
            JSON.stringify({ turnId, sessionId, step, reply, prepared, events, postReviewErrors: postReviewErrors.map((error) => ({ code: error.code, message: error.message })) }, null, 2),
          );
        } else {
          context.output.line(`${speaker}: ${result.reply}`);
        }
        // A requirement stated in this turn: let its DIO task record its outcome before exiting,
        // so the session ends with the task's terminal event, as in the web app.
      }, 'drain');
    });
}
