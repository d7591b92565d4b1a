#!/usr/bin/env node
// Runs every package's vitest project in one process and ends with the line CI reads:
// "N passed, N failed". Exits non-zero on any failure and when no test ran.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs';

const reportFile = '.reports/vitest.json';
mkdirSync('.reports', { recursive: true });
if (existsSync(reportFile)) rmSync(reportFile);

const result = spawnSync(
  'pnpm',
  ['exec', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(reportFile)) {
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  passed = report.numPassedTests ?? 0;
  failed = report.numFailedTests ?? 0;
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  // A suite that fails to load counts no test but must still fail the run.
  const brokenSuites = (report.testResults ?? []).filter((suite) => suite.status === 'failed' && suite.assertionResults.length === 0);
  failed += brokenSuites.length;
}
const total = passed + failed;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
if (result.status !== 0 || failed > 0 || total === 0) {
  if (total === 0) console.error('no test ran');
  process.exit(result.status || 1);
}
