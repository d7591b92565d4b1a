#!/usr/bin/env node
// Packaging checks for every public package (run after `pnpm build`):
//   publint --strict           package.json fields, exports, files vs. what the tarball contains
//   attw --profile esm-only    the types each export condition resolves to (node16 ESM + bundler)
//   README API table           every runtime export of the main entry is named in the README
//   no effect in .d.ts         Effect stays inside (public APIs are Promise + AbortSignal)
// Each package is packed once with `pnpm pack` (so `workspace:^` is rewritten exactly as on
// publish) and both tools read that tarball. Exits non-zero when any check fails.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const packagesDir = join(root, 'packages');
const packages = readdirSync(packagesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => ({ dir: join(packagesDir, entry.name), manifest: JSON.parse(readFileSync(join(packagesDir, entry.name, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => !manifest.private);

const tarballDir = mkdtempSync(join(tmpdir(), 'troupe-check-packages-'));
const failures = [];

/** Runs a tool, printing its output; records a failure on a non-zero exit. */
function check(label, command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
  const ok = result.status === 0;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label}`);
  if (!ok) {
    console.log(output.replace(/^/gm, '     '));
    failures.push(label);
  }
  return result;
}

/**
 * What publint does not catch: `workspace:` ranges left in the packed package.json, build caches
 * shipped, and the files every package must carry.
 */
function checkContents(name, tarballPath) {
  const label = `${name} tarball contents`;
  const listing = spawnSync('tar', ['-tzf', tarballPath], { encoding: 'utf8' });
  const packedManifest = spawnSync('tar', ['-xzOf', tarballPath, 'package/package.json'], { encoding: 'utf8' });
  const files = new Set(listing.stdout.split('\n').filter(Boolean));
  const problems = [];
  if (listing.status !== 0 || packedManifest.status !== 0) problems.push('cannot read the tarball');
  if (packedManifest.stdout.includes('workspace:')) problems.push('package.json still has a workspace: range');
  for (const required of ['package/package.json', 'package/README.md', 'package/LICENSE', 'package/dist/index.js', 'package/dist/index.d.ts', 'package/src/index.ts']) {
    if (!files.has(required)) problems.push(`missing ${required.slice('package/'.length)}`);
  }
  for (const file of files) {
    if (/\.tsbuildinfo|\/test\/|\/bench\/|\.test\.|node_modules/.test(file)) problems.push(`ships ${file.slice('package/'.length)}`);
  }
  console.log(`${problems.length === 0 ? 'ok  ' : 'FAIL'} ${label} (${files.size} files)`);
  if (problems.length > 0) {
    console.log(problems.map((problem) => `     ${problem}`).join('\n'));
    failures.push(label);
  }
}

/**
 * Effect stays inside packages: no declaration file may import `effect` (public APIs are Promise +
 * AbortSignal).
 */
function checkNoEffectTypes(name, dir) {
  const label = `${name} no effect types in .d.ts`;
  const offenders = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.d.ts') && /(?:from|import\()\s*['"]effect(?:\/[^'"]*)?['"]/.test(readFileSync(path, 'utf8'))) offenders.push(path.slice(dir.length + 1));
    }
  };
  walk(join(dir, 'dist'));
  console.log(`${offenders.length === 0 ? 'ok  ' : 'FAIL'} ${label}`);
  if (offenders.length > 0) {
    console.log(offenders.map((file) => `     ${file}`).join('\n'));
    failures.push(label);
  }
}

/**
 * A package's main entry is its public API, and its README documents it: every runtime export
 * must appear there in backticks (the API table), so a new export cannot ship undocumented.
 */
async function checkReadmeCoversExports(name, dir) {
  const label = `${name} README names every runtime export`;
  const entry = await import(pathToFileURL(join(dir, 'dist', 'index.js')).href);
  const readme = readFileSync(join(dir, 'README.md'), 'utf8');
  const missing = Object.keys(entry).filter((exported) => !readme.includes(`\`${exported}`));
  console.log(`${missing.length === 0 ? 'ok  ' : 'FAIL'} ${label}`);
  if (missing.length > 0) {
    console.log(`     not in README.md: ${missing.join(', ')}`);
    failures.push(label);
  }
}

try {
  for (const { dir, manifest } of packages) {
    if (!readdirSync(dir).includes('dist')) {
      console.log(`FAIL ${manifest.name}: no dist/ — run \`pnpm build\` first`);
      failures.push(`${manifest.name} build`);
      continue;
    }
    const packed = check(`${manifest.name} pnpm pack`, 'pnpm', ['pack', '--pack-destination', tarballDir], dir);
    if (packed.status !== 0) continue;
    const tarball = readdirSync(tarballDir).find((file) => file === `${manifest.name.replace('@', '').replace('/', '-')}-${manifest.version}.tgz`);
    if (!tarball) {
      console.log(`FAIL ${manifest.name}: tarball not found in ${tarballDir}`);
      failures.push(`${manifest.name} tarball`);
      continue;
    }
    const tarballPath = join(tarballDir, tarball);
    check(`${manifest.name} publint`, bin('publint'), ['run', '--strict', dir], dir);
    check(`${manifest.name} attw`, bin('attw'), [tarballPath, '--profile', 'esm-only', '--format', 'ascii'], dir);
    checkContents(manifest.name, tarballPath);
    checkNoEffectTypes(manifest.name, dir);
    await checkReadmeCoversExports(manifest.name, dir);
  }
} finally {
  rmSync(tarballDir, { recursive: true, force: true });
}

console.log(failures.length === 0 ? `\n${packages.length} packages: publint, attw and tarball checks passed` : `\n${failures.length} check(s) failed: ${failures.join(', ')}`);
process.exit(failures.length === 0 ? 0 : 1);
