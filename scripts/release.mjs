#!/usr/bin/env node
// `pnpm release`: builds every public package, runs the packaging checks, then publishes.
// By default it is a DRY RUN (`pnpm publish --dry-run` per package: packs and prints what would be
// uploaded, uploads nothing). To publish for real, after `pnpm changeset version` has been
// committed and you are logged in to npm (`npm whoami`):
//   pnpm release --publish      → `changeset publish`: publishes every package whose version is not
//                                 on the registry yet and creates the git tags (`git push --follow-tags`).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const publish = process.argv.includes('--publish');

function run(command, args, cwd = root) {
  console.log(`\n$ ${command} ${args.join(' ')}${cwd === root ? '' : `   (in ${cwd.slice(root.length + 1)})`}`);
  const result = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`release: \`${command} ${args.join(' ')}\` failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status || 1);
  }
}

run('pnpm', ['exec', 'turbo', 'run', 'build', '--filter=./packages/*', '--output-logs=errors-only']);
run(process.execPath, [join(root, 'scripts/check-packages.mjs')]);

if (publish) {
  run('pnpm', ['exec', 'changeset', 'publish']);
} else {
  const packagesDir = join(root, 'packages');
  for (const entry of readdirSync(packagesDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(packagesDir, entry.name);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    if (manifest.private) continue;
    run('pnpm', ['publish', '--dry-run', '--no-git-checks', '--access', 'public'], dir);
  }
  console.log('\nrelease: dry run only — nothing was published. Publish for real with `pnpm release --publish`.');
}
