import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createAdaptorServer } from '@hono/node-server';
import { type Logger, silentLogger, Tokens } from '@troupe/kernel';
import type { Demo } from '../compose.js';
import { createWebApp } from './web-app.js';

/** Options of {@link startWebServer}. */
export interface WebServerOptions {
  /** Port (default 8080; `0` picks a free one). */
  readonly port?: number;
  /** Bind address (default `127.0.0.1`; the app has no login, so keep it on loopback). */
  readonly host?: string;
  /** Where the built browser UI is (default `apps/demo/dist/web`). */
  readonly staticDir?: string;
  /** Where request failures are logged (default: the harness's logger). */
  readonly logger?: Logger;
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

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

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
  const isLoopback = LOOPBACK.includes(host.includes(':') ? `[${host}]` : host);
  const app = createWebApp(demo, {
    staticDir: options.staticDir ?? DEFAULT_STATIC_DIR,
    // On loopback only loopback names are accepted, so a web page cannot reach this server through DNS rebinding.
    ...(isLoopback ? { allowedHosts: LOOPBACK } : {}),
    logger,
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
