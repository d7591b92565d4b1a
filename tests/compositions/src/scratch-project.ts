import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { type CommandOutput, runCommand } from './run-command.js';
import { WORKSPACE_ROOT } from './workspace.js';

/** A throwaway npm project (outside the workspace) with some @troupe tarballs installed. */
export interface ScratchProject {
  readonly dir: string;
  /**
   * Adds a TypeScript script: stored as `<name>.ts` for the type check and as `<name>.mjs`
   * (types stripped) to run with plain Node.
   */
  addScript(name: string, source: string): Promise<void>;
  /**
   * Type-checks every added script against the installed packages' own `.d.ts` files.
   * @returns the diagnostics, formatted (empty when clean)
   */
  typecheck(): string;
  /** Runs an added script with Node in the project directory. */
  run(name: string, env?: Readonly<Record<string, string>>): Promise<CommandOutput>;
}

/**
 * Creates `dir` as an ESM npm project and installs the given tarballs with npm (their ordinary
 * dependencies come from the npm registry, peers must be among the tarballs).
 * @param dir - an empty directory outside the workspace
 * @param tarballs - `.tgz` paths to install
 * @returns the project
 * @throws {Error} when npm install fails
 */
export async function createScratchProject(dir: string, tarballs: readonly string[]): Promise<ScratchProject> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), `${JSON.stringify({ name: 'troupe-scratch', private: true, type: 'module' }, null, 2)}\n`);
  await runCommand('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], {
    cwd: dir,
    env: cleanEnv(),
    timeoutMs: 120_000,
  });
  const scripts: string[] = [];
  return {
    dir,
    async addScript(name, source) {
      await writeFile(join(dir, `${name}.ts`), source);
      const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false } });
      await writeFile(join(dir, `${name}.mjs`), outputText);
      scripts.push(join(dir, `${name}.ts`));
    },
    typecheck() {
      const program = ts.createProgram(scripts, {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        lib: ['lib.es2023.d.ts'],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        // The scratch project installs no @types/node; borrow the workspace's (Node 20 typings).
        types: ['node'],
        typeRoots: [join(WORKSPACE_ROOT, 'node_modules/@types')],
      });
      const diagnostics = ts.getPreEmitDiagnostics(program);
      return ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => '\n' });
    },
    run(name, env = {}) {
      return runCommand(process.execPath, [join(dir, `${name}.mjs`)], { cwd: dir, env: { ...cleanEnv(), ...env }, timeoutMs: 60_000 });
    },
  };
}

/**
 * The parent's environment without what would leak the workspace into the scratch project
 * (pnpm/npm settings, model servers configured on this machine).
 */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    // Keep where npm downloads from and caches; drop the rest of pnpm's npm_config_* (it runs us).
    if (/^npm_config_(registry|cache|userconfig)$/i.test(key)) {
      env[key] = value;
      continue;
    }
    if (/^(npm_|PNPM_|pnpm_|TROUPE_|DIO_|NODE_OPTIONS$|VITEST|TEST$)/.test(key)) continue;
    env[key] = value;
  }
  return env;
}
