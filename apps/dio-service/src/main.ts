#!/usr/bin/env node
// Entry point: `pnpm --filter @troupe/dio-service start`. Reads the environment, opens durable
// storage, serves HTTP, and shuts down cleanly on SIGTERM/SIGINT.
import 'reflect-metadata';
import { consoleLogger } from '@troupe/kernel';
import { describeError } from '@troupe/kernel/util';
import { readConfig } from './config.js';
import { startDioService } from './start.js';

const logger = consoleLogger('info', { service: 'dio-service' });

try {
  const config = readConfig();
  const running = await startDioService(config, logger);
  // The one line that says the service is up (stdout, so scripts can wait for it).
  process.stdout.write(`dio-service listening on ${running.url}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('shutdown failed', { error: describeError(error) });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
} catch (error) {
  logger.error('dio-service could not start', { error: describeError(error) });
  process.exitCode = 1;
}
