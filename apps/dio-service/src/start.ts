import type { AddressInfo } from 'node:net';
import type { ChatModel, Logger, TreeStore } from '@troupe/kernel';
import { offlineModel } from '@troupe/model-offline';
import { openAICompatibleModel } from '@troupe/model-openai-compatible';
import type { ServiceConfig } from './config.js';
import { DioService } from './dio-service.js';
import { DioStore } from './dio-store.js';
import { createDioServer } from './http-server.js';
import { openTreeStore } from './storage.js';

/** A started service. */
export interface RunningDioService {
  /** `http://host:port` actually bound (port 0 → the chosen port). */
  readonly url: string;
  readonly service: DioService;
  /** Stops accepting connections, stops running tasks (they resume on the next start), closes storage. */
  close(): Promise<void>;
}

/** Overrides for {@link startDioService} (tests inject a store or model). */
export interface StartOverrides {
  readonly trees?: TreeStore;
  readonly model?: ChatModel;
}

/**
 * Opens storage, resumes unfinished tasks and listens.
 * @param config - from {@link readConfig}
 * @param logger - diagnostics
 * @param overrides - injected store or model
 * @returns the running service
 */
export async function startDioService(config: ServiceConfig, logger: Logger, overrides: StartOverrides = {}): Promise<RunningDioService> {
  const opened = overrides.trees ? { trees: overrides.trees, close: async () => {} } : await openTreeStore(config);
  const { trees } = opened;
  const model = overrides.model ?? pickModel(config, logger);
  const service = new DioService({
    store: new DioStore(trees),
    model,
    logger: logger.child({ component: 'tasks' }),
    ...(config.maxConcurrentCompiles === undefined ? {} : { maxConcurrentCompiles: config.maxConcurrentCompiles }),
  });
  const resumed = await service.resume();
  if (resumed > 0) logger.info('resumed unfinished tasks', { count: resumed });
  const server = createDioServer(service, { tokens: config.tokens, ...(config.adminToken ? { adminToken: config.adminToken } : {}), logger });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    service,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await service.close();
      server.closeAllConnections();
      await closed;
      await opened.close();
    },
  };
}

/**
 * The compiling model: an OpenAI-compatible server when `TROUPE_MODEL_BASE_URL` and
 * `TROUPE_MODEL` are set (its output is validated and falls back to the merge), else the
 * deterministic offline model.
 */
function pickModel(config: ServiceConfig, logger: Logger): ChatModel {
  if (!config.model) return offlineModel();
  logger.info('compiling with an OpenAI-compatible model', { model: config.model.model });
  return openAICompatibleModel({
    baseURL: config.model.baseUrl,
    model: config.model.model,
    ...(config.model.apiKey ? { apiKey: config.model.apiKey } : {}),
    // The merge is the fallback, so one retry is enough; a slow model must not hold a task forever.
    maxRetries: 1,
    timeoutMs: 60_000,
  });
}
