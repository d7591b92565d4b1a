import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { Context } from 'hono';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

/**
 * Serves the built web app from `root`: a file when the path names one inside `root`, else
 * `index.html` (the app routes in the browser). Paths that try to leave `root` get 404.
 * @param root - absolute path of the Vite build output
 * @returns a GET handler
 */
export function staticFiles(root: string): (c: Context) => Promise<Response> {
  const base = normalize(root + sep);
  return async (c) => {
    let relative: string;
    try {
      relative = decodeURIComponent(new URL(c.req.url).pathname);
    } catch {
      return c.json({ code: 'NOT_FOUND', message: 'No such file' }, 404);
    }
    const path = normalize(join(base, relative));
    if (!path.startsWith(base) && path + sep !== base) return c.json({ code: 'NOT_FOUND', message: 'No such file' }, 404);
    const file = (await isFile(path)) ? path : join(base, 'index.html');
    if (!(await isFile(file))) {
      return c.text('The web app is not built yet: run `pnpm --filter @troupe/demo build` (the JSON API under /api works without it).', 503);
    }
    const body = await readFile(file);
    // Vite fingerprints assets, so they may be cached forever; index.html must always be fresh.
    const cache = file.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache';
    return c.body(body, 200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': cache });
  };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
