import { resolve } from 'node:path';
import { fsStorage } from '@troupe/storage-fs';
import type { Command } from 'commander';
import { DemoConfigError, resolveDataDir } from '../../compose.js';
import { openDemoStorage } from '../../storage/demo-storage.js';
import { transferWorkspace } from '../../storage/transfer-workspace.js';
import type { CliContext, GlobalOptions } from '../context.js';

/**
 * Registers `export-workspace <id> [--to DIR]` (database → data folder) and
 * `import-workspace <id> [--from DIR]` (data folder → database); both need `TROUPE_DATABASE_URL`.
 */
export function registerWorkspaceTransferCommands(program: Command, context: CliContext): void {
  const withBoth = async (folder: string | undefined, body: (stores: { database: Awaited<ReturnType<typeof openDemoStorage>>; folder: ReturnType<typeof fsStorage>; dir: string }) => Promise<void>) => {
    if (!context.env.TROUPE_DATABASE_URL) {
      throw new DemoConfigError('export-workspace and import-workspace move a workspace between a data folder and PostgreSQL: set TROUPE_DATABASE_URL');
    }
    const global = program.opts<GlobalOptions>();
    const dir = folder ? resolve(folder) : resolveDataDir({ env: context.env, ...(global.data ? { dataDir: global.data } : {}) });
    const database = await openDemoStorage(dir, context.env);
    try {
      await body({ database, folder: fsStorage({ root: dir }), dir });
    } finally {
      await database.close();
    }
  };
  program
    .command('export-workspace <id>')
    .description('copy a story workspace from the database (TROUPE_DATABASE_URL) into a data folder')
    .option('--to <dir>', 'the data folder (default: --data, TROUPE_HOME or ~/.troupe)')
    .action((id: string, options: { to?: string }) =>
      withBoth(options.to, async ({ database, folder, dir }) => {
        const copied = await transferWorkspace(database.trees, folder.trees, id);
        context.output.line(`exported ${id} (revision ${copied.fromRevision}, ${copied.files} files) from ${database.where} to ${dir}`);
      }),
    );
  program
    .command('import-workspace <id>')
    .description('copy a story workspace from a data folder into the database (TROUPE_DATABASE_URL)')
    .option('--from <dir>', 'the data folder (default: --data, TROUPE_HOME or ~/.troupe)')
    .action((id: string, options: { from?: string }) =>
      withBoth(options.from, async ({ database, folder, dir }) => {
        const copied = await transferWorkspace(folder.trees, database.trees, id);
        context.output.line(`imported ${id} (revision ${copied.fromRevision}, ${copied.files} files) from ${dir} into ${database.where}`);
      }),
    );
}
