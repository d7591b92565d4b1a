import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createAdaptorServer } from '@hono/node-server';
import { type Logger, silentLogger, Tokens } from '@troupe/kernel';
import type { Demo } from '../compose.js';
import { type ErrorLogSink, stderrSink } from './error-log.js';
import { allowedHostNames } from './host-check.js';
import { createWebApp } from './web-app.js';

/** Options of {@link startWebServer}. */
export interface WebServerOptions {
  /** Port (default 8080; `0` picks a free one). */
  readonly port?: number;
  /** Bind address (default `127.0.0.1`; the app has no login, so keep it on loopback). */
  readonly host?: string;
  /** Where the built browser UI is (default `apps/demo/dist/web`). */
  readonly staticDir?: string;
  /** Where request failures are logged as structured records (default: the harness's logger). */
  readonly logger?: Logger;
  /**
   * Host names answered besides the loopback names and the bind address itself (others get 403,
   * against DNS rebinding). The check is on for every bind.
   */
  readonly allowHosts?: readonly string[];
  /** One line per 5xx answer with its cause, credentials masked (default: stderr); `false` silences it. */
  readonly errorLog?: ErrorLogSink | false;
}

/** A listening web server. */
export interface RunningWebServer {
  /** e.g. `http://127.0.0.1:8080` */
  readonly url: string;
  /** Stops listening and ends open connections (streaming turns are cancelled). */
  close(): Promise<void>;
}

/** Where `vite build` puts the browser UI (same relative path from `src/server` and `dist/server`). */
export const DEFAULT_STATIC_DIR = fileURLToPath(new URL('../../dist/web', import.meta.url));

/**
 * Serves the demo's web app (JSON API + browser UI) over HTTP.
 * @param demo - the composed demo (the caller closes it after the server)
 * @param options - port, host, static directory
 * @returns the URL and `close()`
 * @throws the listen error (e.g. `EADDRINUSE`)
 */
export async function startWebServer(demo: Demo, options: WebServerOptions = {}): Promise<RunningWebServer> {
  const host = options.host ?? '127.0.0.1';
  const logger = options.logger ?? harnessLogger(demo);
  const errorLog = options.errorLog === false ? undefined : (options.errorLog ?? stderrSink);
  const app = createWebApp(demo, {
    staticDir: options.staticDir ?? DEFAULT_STATIC_DIR,
    allowedHosts: allowedHostNames(host, options.allowHosts),
    logger,
    ...(errorLog ? { errorLog } : {}),
  });
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Closing twice (a shutdown signal after a test's or an app's own close) is not an error.
        if (!server.listening) return resolve();
        server.close((error) => (error ? reject(error) : resolve()));
        // Server-sent event streams would keep close() waiting forever.
        server.closeAllConnections();
      }),
  };
}

function harnessLogger(demo: Demo): Logger {
  try {
    return demo.harness.resolve(Tokens.Logger).child({ component: 'web' });
  } catch {
    return silentLogger;
  }
}
