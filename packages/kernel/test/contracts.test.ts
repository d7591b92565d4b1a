import { describeChatControlsContract, describeSessionLogContract, describeSessionTurnLockContract, describeTreeStoreContract } from '@troupe/kernel/contracts';
import { MemorySessionLog, MemoryTreeStore } from '@troupe/kernel/testing';

describeTreeStoreContract('in-memory', async () => ({ store: new MemoryTreeStore() }));
describeSessionLogContract('in-memory', async () => ({ log: new MemorySessionLog() }));
describeChatControlsContract('in-memory', async () => ({ log: new MemorySessionLog() }));
describeSessionTurnLockContract('in-memory', async () => {
  const log = new MemorySessionLog();
  return { first: log, second: log };
});
