import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A Unix-socket proxy in front of the suite's PostgreSQL server, so a test can make the server
 * unreachable (refuse new connections, cut the open ones) and reachable again, without touching
 * the server the other tests share.
 */
export interface SocketProxy {
  /** Connection string that goes through the proxy. */
  readonly url: string;
  /** Connections the proxy accepted so far. */
  readonly accepted: number;
  /** Stops listening (new connections fail with ENOENT) and cuts every open connection. */
  down(): Promise<void>;
  /** Listens again. */
  up(): Promise<void>;
  /** Stops and removes the proxy's folder. */
  close(): Promise<void>;
}

/**
 * Starts a proxy that forwards to the server behind `pgUrl` (a `?host=<socket dir>` URL).
 * @param pgUrl - the suite server's connection string
 */
export async function startSocketProxy(pgUrl: string): Promise<SocketProxy> {
  const url = new URL(pgUrl);
  const targetDir = url.searchParams.get('host');
  if (!targetDir) throw new Error(`startSocketProxy needs a ?host=<socket dir> URL, got ${pgUrl}`);
  const socketName = `.s.PGSQL.${url.port || '5432'}`;
  const dir = await mkdtemp(join(tmpdir(), 'troupe-pg-proxy-'));
  const open = new Set<Socket>();
  let accepted = 0;
  let server: Server | undefined;
  const up = async () => {
    const listening = createServer((client) => {
      accepted += 1;
      const upstream = connect(join(targetDir, socketName));
      open.add(client).add(upstream);
      const cut = () => {
        client.destroy();
        upstream.destroy();
        open.delete(client);
        open.delete(upstream);
      };
      client.on('error', cut).on('close', cut);
      upstream.on('error', cut).on('close', cut);
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => listening.listen(join(dir, socketName), resolve));
    server = listening;
  };
  const down = async () => {
    const listening = server;
    server = undefined;
    for (const socket of open) socket.destroy();
    open.clear();
    if (listening) await new Promise<void>((resolve) => listening.close(() => resolve()));
  };
  await up();
  const proxied = new URL(pgUrl);
  proxied.searchParams.set('host', dir);
  return {
    url: proxied.toString(),
    get accepted() {
      return accepted;
    },
    down,
    up,
    close: async () => {
      await down();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
