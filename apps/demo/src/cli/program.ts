import { Command, CommanderError } from 'commander';
import { runShowcase } from '../showcase/run-showcase.js';
import { registerChatCommand } from './commands/chat-command.js';
import { registerPresetCommand } from './commands/preset-command.js';
import { registerServeCommand } from './commands/serve-command.js';
import { registerSessionCommand } from './commands/session-command.js';
import { registerStoryCommand } from './commands/story-command.js';
import { registerTurnCommand } from './commands/turn-command.js';
import { registerWorkspaceTransferCommands } from './commands/workspace-transfer-command.js';
import { type CliContext, type GlobalOptions, withDemo } from './context.js';

/**
 * Builds the `troupe-demo` command line. Without a subcommand it plays the showcase.
 * @param context - output and environment
 * @returns the commander program
 */
export function buildProgram(context: CliContext): Command {
  const program = new Command('troupe-demo')
    .description('Troupe demo: an offline roleplay showcase, a web app and tools for stories and sessions')
    .option('--data <dir>', 'where workspaces and sessions are kept (default: TROUPE_HOME or ~/.troupe)')
    .option('--verbose', 'print diagnostics to stderr')
    .showHelpAfterError()
    // Set before subcommands are added so they inherit it: runCli turns exits into return codes.
    .exitOverride()
    .configureOutput({ writeOut: (text) => context.output.line(text.trimEnd()), writeErr: (text) => process.stderr.write(text) });

  const showcase = async (): Promise<void> => {
    await withDemo(context, program.opts<GlobalOptions>(), (demo) => runShowcase(demo, context.output));
  };
  program.action(showcase);
  program.command('showcase').description('play the scripted offline showcase (the default)').action(showcase);
  registerServeCommand(program, context);
  registerChatCommand(program, context);
  registerTurnCommand(program, context);
  registerStoryCommand(program, context);
  registerSessionCommand(program, context);
  registerPresetCommand(program, context);
  registerWorkspaceTransferCommands(program, context);
  return program;
}

/**
 * Runs the CLI and turns failures into a message and an exit code (never a stack trace for
 * errors that carry a `code`).
 * @param argv - arguments after the script name
 * @param context - output and environment
 * @returns the process exit code
 */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
  const program = buildProgram(context);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    const { code, message } = error as { code?: unknown; message?: unknown };
    process.stderr.write(`error${typeof code === 'string' ? ` [${code}]` : ''}: ${String(message ?? error)}\n`);
    if (typeof code !== 'string' && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    return 1;
  }
}
