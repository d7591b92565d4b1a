#!/usr/bin/env node
// Runs every workspace package's `bench` script, one at a time (benchmarks share 2 cores).
import { spawnSync } from 'node:child_process';

const result = spawnSync('pnpm', ['-r', '--workspace-concurrency=1', '--if-present', 'run', 'bench'], { stdio: 'inherit' });
process.exit(result.status ?? 1);
