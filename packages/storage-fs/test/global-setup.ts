import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Child-process fixtures import ../../dist, so compile the package once before the suite. */
export default function setup(): void {
  const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
  execFileSync(join(packageDir, '..', '..', 'node_modules', '.bin', 'tsc'), ['-b', 'tsconfig.src.json'], { cwd: packageDir, stdio: 'inherit' });
}
