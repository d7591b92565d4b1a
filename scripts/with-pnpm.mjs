#!/usr/bin/env node
// Lets the README's two commands work on a machine that has only Node 20 and npm:
// it finds pnpm 12.4.2 (or runs it through npx), installs the workspace, then runs a script.
//   install-and-run <script> [args…]                 install, then the script
//   install-build-and-run <build> <script> [args…]   install and build with their output on stderr,
//     then the script: stdout carries only what the script prints (`npm run demo -- session export
//     ID > file.jsonl` gets a clean file).
import { spawnSync } from 'node:child_process';

const PNPM_VERSION = '12.4.2';
// Quiet, reproducible tooling for people running the README's commands.
process.env.TURBO_TELEMETRY_DISABLED ??= '1';
const [mode, ...params] = process.argv.slice(2);
const building = mode === 'install-build-and-run';
const build = building ? params[0] : undefined;
const [script, ...rest] = building ? params.slice(1) : params;
if ((mode !== 'install-and-run' && !building) || !script || (building && !build)) {
  console.error('usage: with-pnpm.mjs install-and-run <script> [args…] | install-build-and-run <build-script> <script> [args…]');
  process.exit(2);
}

/** Returns the command prefix that runs pnpm at the pinned version. */
function findPnpm() {
  const probe = spawnSync('pnpm', ['--version'], { encoding: 'utf8', shell: process.platform === 'win32' });
  if (probe.status === 0 && probe.stdout.trim() === PNPM_VERSION) return ['pnpm'];
  return ['npx', '--yes', `pnpm@${PNPM_VERSION}`];
}

// `toStderr`: the step's stdout goes to our stderr, so only the final script writes to stdout.
function run(command, args, toStderr = false) {
  const result = spawnSync(command, args, { stdio: toStderr ? ['inherit', 2, 2] : 'inherit', shell: process.platform === 'win32' });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

const [command, ...prefix] = findPnpm();
const installArgs = [...prefix, 'install', ...(process.env.CI ? ['--frozen-lockfile'] : [])];
const installStatus = run(command, installArgs, building);
if (installStatus !== 0) process.exit(installStatus);
if (build) {
  const buildStatus = run(command, [...prefix, '--silent', 'run', build], true);
  if (buildStatus !== 0) process.exit(buildStatus);
}
process.exit(run(command, [...prefix, ...(building ? ['--silent'] : []), 'run', script, ...rest]));
