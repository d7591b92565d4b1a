import type { Command } from 'commander';
import { startWebServer } from '../../server/index.js';
import { type CliContext, type GlobalOptions, withDemo } from '../context.js';

/**
 * Registers `serve [--port N] [--host H]`: the web app (chat, story panel, DIO view) until
 * Ctrl-C / SIGTERM, then a clean shutdown (background DIO waits aborted, service closed).
 */
export function registerServeCommand(program: Command, context: CliContext): void {
  program
    .command('serve')
    .description('serve the web app (chat, story workspaces, DIO view)')
    .option('--port <port>', 'port to listen on', '8080')
    .option('--host <host>', 'interface to bind (loopback by default)', '127.0.0.1')
    .action(async (options: { port: string; host: string }) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) throw Object.assign(new Error(`--port must be 0–65535, not "${options.port}"`), { code: 'DEMO_INVALID_OPTION' });
      await withDemo(context, program.opts<GlobalOptions>(), async (demo) => {
        const server = await startWebServer(demo, { port, host: options.host });
        context.output.line(`Troupe demo web app: ${server.url}   (data: ${demo.dataDir}, model: ${demo.modelId}; Ctrl-C to stop)`);
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
