#!/usr/bin/env node
// Lets the README's two commands work on a machine that has only Node 20 and npm:
// it finds pnpm 12.4.2 (or runs it through npx), installs the workspace, then runs a script.
import { spawnSync } from 'node:child_process';

const PNPM_VERSION = '12.4.2';
// Quiet, reproducible tooling for people running the README's commands.
process.env.TURBO_TELEMETRY_DISABLED ??= '1';
const [mode, script, ...rest] = process.argv.slice(2);
if (mode !== 'install-and-run' || !script) {
  console.error('usage: with-pnpm.mjs install-and-run <script> [args…]');
  process.exit(2);
}

/** Returns the command prefix that runs pnpm at the pinned version. */
function findPnpm() {
  const probe = spawnSync('pnpm', ['--version'], { encoding: 'utf8', shell: process.platform === 'win32' });
  if (probe.status === 0 && probe.stdout.trim() === PNPM_VERSION) return ['pnpm'];
  return ['npx', '--yes', `pnpm@${PNPM_VERSION}`];
}

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

const [command, ...prefix] = findPnpm();
const installArgs = [...prefix, 'install', ...(process.env.CI ? ['--frozen-lockfile'] : [])];
const installStatus = run(command, installArgs);
if (installStatus !== 0) process.exit(installStatus);
process.exit(run(command, [...prefix, 'run', script, ...rest]));
