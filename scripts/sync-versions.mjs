#!/usr/bin/env node
// Runs after `changeset version` (see the root `version-packages` script):
// 1. KERNEL_VERSION in packages/kernel/src/version.ts follows the kernel's package.json (a kernel
//    test checks they are equal; plugins' `kernel` ranges are checked against it at boot).
// 2. Changesets rewrites a bumped peer range `workspace:>=0.1.0 <1.0.0` to an open-ended
//    `workspace:>=X.Y.Z` when the kernel leaves it (a kernel major). Put the upper bound back:
//    `>=X.Y.Z <(X+1).0.0`, so a published plugin never claims a kernel major it was not built for.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const kernelManifest = JSON.parse(readFileSync(join(root, 'packages/kernel/package.json'), 'utf8'));
const versionFile = join(root, 'packages/kernel/src/version.ts');
const source = readFileSync(versionFile, 'utf8');
const synced = source.replace(/export const KERNEL_VERSION = '[^']*';/, `export const KERNEL_VERSION = '${kernelManifest.version}';`);
if (synced !== source) {
  writeFileSync(versionFile, synced);
  console.log(`KERNEL_VERSION = ${kernelManifest.version}`);
}

for (const entry of readdirSync(join(root, 'packages'), { withFileTypes: true })) {
  if (!entry.isDirectory()) continue;
  const file = join(root, 'packages', entry.name, 'package.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  const range = manifest.peerDependencies?.['@troupe/kernel'];
  const openEnded = typeof range === 'string' ? /^workspace:>=(\d+)\.(\d+)\.(\d+)$/.exec(range) : null;
  if (!openEnded) continue;
  const bounded = `workspace:>=${openEnded[1]}.${openEnded[2]}.${openEnded[3]} <${Number(openEnded[1]) + 1}.0.0`;
  manifest.peerDependencies['@troupe/kernel'] = bounded;
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`${manifest.name}: peer @troupe/kernel ${bounded}`);
}
