import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageDir } from './workspace.js';

/** The heading under which every package README shows its runnable example. */
export const EXAMPLE_HEADING = '## Smallest working example';

/**
 * The first ```ts block under "## Smallest working example" in a package's README — the code a
 * user copies, run verbatim by the composition tests.
 * @param packageName - e.g. `@troupe/plugin-dio`
 * @returns the TypeScript source of the block
 * @throws {Error} when the README has no such heading or no ts block under it
 */
export function readmeExample(packageName: string): string {
  const readme = readFileSync(join(packageDir(packageName), 'README.md'), 'utf8');
  const start = readme.indexOf(`\n${EXAMPLE_HEADING}\n`);
  if (start < 0) throw new Error(`${packageName} README has no "${EXAMPLE_HEADING}" heading`);
  const nextHeading = readme.indexOf('\n## ', start + EXAMPLE_HEADING.length + 1);
  const section = readme.slice(start, nextHeading < 0 ? undefined : nextHeading);
  const block = /```ts\n([\s\S]*?)\n```/.exec(section);
  if (!block?.[1]) throw new Error(`${packageName} README has no \`\`\`ts block under "${EXAMPLE_HEADING}"`);
  return `${block[1]}\n`;
}
