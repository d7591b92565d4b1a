import type { Command } from 'commander';
import { bindWarning } from '../../server/host-check.js';
import { startWebServer } from '../../server/index.js';
import { type CliContext, type GlobalOptions, withDemo } from '../context.js';

/**
 * Registers `serve [--port N] [--host H] [--allow-host a,b] [--quiet]`: the web app (chat, story
 * panel, DIO view) until Ctrl-C / SIGTERM, then a clean shutdown (background DIO waits aborted,
 * service closed). Every 5xx answer is logged to stderr as one line with its cause unless
 * `--quiet`; binding beyond loopback without `--allow-host` prints a warning.
 */
export function registerServeCommand(program: Command, context: CliContext): void {
  program
    .command('serve')
    .description('serve the web app (chat, story workspaces, DIO view)')
    .option('--port <port>', 'port to listen on', '8080')
    .option('--host <host>', 'interface to bind (loopback by default)', '127.0.0.1')
    .option('--allow-host <names>', 'comma-separated Host names to answer besides loopback and the bind address (e.g. mybox.lan,192.168.1.20)')
    .option('--quiet', 'do not log failed requests (5xx) to stderr')
    .action(async (options: { port: string; host: string; allowHost?: string; quiet?: boolean }) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) throw Object.assign(new Error(`--port must be 0–65535, not "${options.port}"`), { code: 'DEMO_INVALID_OPTION' });
      await withDemo(context, program.opts<GlobalOptions>(), async (demo) => {
        const allowHosts = (options.allowHost ?? '').split(',').map((name) => name.trim()).filter((name) => name.length > 0);
        const warning = bindWarning(options.host, allowHosts);
        if (warning) process.stderr.write(`${warning}\n`);
        const server = await startWebServer(demo, { port, host: options.host, allowHosts, ...(options.quiet ? { errorLog: false as const } : {}) });
        context.output.line(`Troupe demo web app: ${server.url}   (data: ${demo.dataDir}, model: ${demo.modelId}; Ctrl-C to stop)`);
        // Turns committed just before a crash get their story write-back now, not at the next turn.
        // (In the background: closing the harness bounds it with its deadline.)
        void demo.finishCommittedTurns().catch(() => 0);
        try {
          await (context.waitForStop ?? waitForSignal)();
        } finally {
          await server.close();
        }
      });
    });
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
