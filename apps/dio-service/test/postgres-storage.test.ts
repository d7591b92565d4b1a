import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@troupe/kernel';
import { offlineModel } from '@troupe/model-offline';
import { postgresStorage } from '@troupe/storage-postgres';
import { startThrowawayServer, type ThrowawayServer } from '@troupe/storage-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';
import { startDioService } from '../src/start.js';
import { ADMIN, call, LIA_BASE } from './helpers/test-service.js';

// Skipped only when the developer opted out of PostgreSQL tests (the storage-postgres suite says why).
const skip = process.env.TROUPE_SKIP_PG === '1';
let server: ThrowawayServer | undefined;
let dataDir = '';

beforeAll(async () => {
  if (skip) return;
  server = startThrowawayServer();
  dataDir = await mkdtemp(join(tmpdir(), 'dio-service-pg-'));
});
afterAll(async () => {
  server?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe.skipIf(skip)('DIO_DATABASE_URL', () => {
  it('keeps prompts and tasks in PostgreSQL instead of the data folder, across restarts', async () => {
    const url = server?.url ?? '';
    const config = { ...readConfig({ DIO_DATA_DIR: dataDir, DIO_ADMIN_TOKEN: ADMIN, DIO_DATABASE_URL: url, PORT: '0' }) };
    expect(config.databaseUrl).toBe(url);
    const first = await startDioService(config, silentLogger, { model: offlineModel() });
    try {
      expect((await call(first.url, 'PUT', '/v1/prompts/lia-character', ADMIN, { content: LIA_BASE, characterName: '莉娅' })).status).toBe(201);
    } finally {
      await first.close();
    }
    expect(await readdir(dataDir)).toEqual([]);
    const storage = postgresStorage({ connectionString: url });
    try {
      expect((await storage.trees.list()).length).toBeGreaterThan(0);
    } finally {
      await storage.close();
    }
    // A second process (here: a restart) on the same database finds the prompt already there.
    const second = await startDioService(config, silentLogger, { model: offlineModel() });
    try {
      const again = await call(second.url, 'PUT', '/v1/prompts/lia-character', ADMIN, { content: LIA_BASE, characterName: '莉娅' });
      expect(again.status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('rejects a DIO_DATABASE_URL that is not a postgresql:// URL', () => {
    expect(() => readConfig({ DIO_DATABASE_URL: 'mysql://x' })).toThrow(/DIO_DATABASE_URL/);
  });
});
