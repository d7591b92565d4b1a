import { describeChatControlsContract, describeSessionLogContract, describeTreeStoreContract } from '@troupe/kernel/contracts';
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
