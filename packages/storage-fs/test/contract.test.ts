import { describeChatControlsContract, describeSessionLogContract, describeSessionTurnLockContract, describeTreeStoreContract } from '@troupe/kernel/contracts';
import { fsStorage } from '../src/index.js';
import { tempStorage } from './helpers.js';

describeTreeStoreContract('fs', async () => {
  const storage = await tempStorage();
  return { store: storage.trees, cleanup: storage.cleanup };
});

describeSessionLogContract('fs', async () => {
  const storage = await tempStorage();
  return { log: storage.sessions, cleanup: storage.cleanup };
});

describeChatControlsContract('fs', async () => {
  const storage = await tempStorage();
  return { log: storage.sessions, cleanup: storage.cleanup };
});

describeSessionTurnLockContract('fs (two stores on one folder)', async () => {
  const storage = await tempStorage();
  return { first: storage.sessions, second: fsStorage({ root: storage.root }).sessions, cleanup: storage.cleanup };
});
