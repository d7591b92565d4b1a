import { describeChatControlsContract, describeSessionLogContract, describeTreeStoreContract } from '@troupe/kernel/contracts';
import { describePg, freshStorage } from './helpers.js';

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
});
