import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from './run-command.js';
import { publicPackages, WORKSPACE_ROOT } from './workspace.js';

/**
 * Compiles every public package and the reference DIO service (incremental: a no-op when `pnpm
 * build` already ran), then `pnpm pack`s each public package — exactly what `pnpm publish` would
 * upload, with `workspace:^` rewritten to a real range.
 * @param destination - directory for the `.tgz` files
 * @returns tarball path by package name
 * @throws {Error} when the build or a pack fails
 */
export async function buildAndPack(destination: string): Promise<Map<string, string>> {
  const packages = publicPackages();
  const projects = [...packages.map((pkg) => join(pkg.dir, 'tsconfig.src.json')), join(WORKSPACE_ROOT, 'apps/dio-service/tsconfig.src.json')];
  await runCommand(process.execPath, [join(WORKSPACE_ROOT, 'node_modules/typescript/bin/tsc'), '-b', ...projects], { cwd: WORKSPACE_ROOT, timeoutMs: 120_000 });
  const tarballs = new Map<string, string>();
  for (const pkg of packages) {
    // One at a time: pnpm pack is quick, and parallel packs would compete for the 2 cores.
    const before = new Set(await readdir(destination));
    await runCommand('pnpm', ['pack', '--pack-destination', destination], { cwd: pkg.dir });
    const created = (await readdir(destination)).filter((file) => file.endsWith('.tgz') && !before.has(file));
    if (created.length !== 1) throw new Error(`pnpm pack of ${pkg.name} produced ${created.length} tarballs`);
    tarballs.set(pkg.name, join(destination, created[0]!));
  }
  return tarballs;
}
