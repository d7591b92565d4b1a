import { describeChatControlsContract, describeSessionLogContract, describeSessionTurnLockContract, describeTreeStoreContract } from '@troupe/kernel/contracts';
import { postgresStorage } from '../src/index.js';
import { describePg, freshSchema, freshStorage, pgUrl } from './helpers.js';

// The kernel's suites, unchanged: every test gets a fresh, migrated schema.
describePg('@troupe/storage-postgres passes the kernel contracts', () => {
  describeTreeStoreContract('postgres', async () => {
    const storage = await freshStorage();
    return { store: storage.trees, cleanup: storage.cleanup };
  });

  describeSessionLogContract('postgres', async () => {
    const storage = await freshStorage();
    return { log: storage.sessions, cleanup: storage.cleanup };
  });

  describeChatControlsContract('postgres', async () => {
    const storage = await freshStorage();
    return { log: storage.sessions, cleanup: storage.cleanup };
  });

  // Two storages (two pools) on one schema: as two app servers on one database.
  describeSessionTurnLockContract('postgres (two storages on one schema)', async () => {
    const schema = freshSchema();
    const storage = await freshStorage({ schema });
    const other = postgresStorage({ connectionString: pgUrl, schema });
    return {
      first: storage.sessions,
      second: other.sessions,
      cleanup: async () => {
        await other.close();
        await storage.cleanup();
      },
    };
  });
});
