import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { startDioService, type RunningDioService } from '@troupe/dio-service';
import { createHarness, type Harness, type Logger, type ModelRegistry, silentLogger, type TurnInput } from '@troupe/kernel';
import { offlineModel } from '@troupe/model-offline';
import { modelRegistryFromEnv } from '@troupe/model-openai-compatible';
import { actorAssemblerPlugin } from '@troupe/plugin-actor-assembler';
import { dioPlugin } from '@troupe/plugin-dio';
import { StoryWorkspaces, storyPlugin } from '@troupe/plugin-story';
import { fsStorage } from '@troupe/storage-fs';
import { demoPreset } from './demo-preset.js';
import { LIA_CHARACTER_NAME, LIA_CHARACTER_PROMPT, LIA_TARGET_PROMPT_ID } from './example/lia-character.js';

/** Environment variables the demo reads. */
export type DemoEnv = Readonly<Record<string, string | undefined>>;

/** Options of {@link composeDemo}. */
export interface DemoOptions {
  /** Where workspaces, sessions and the DIO service's data live (default `TROUPE_HOME` or `~/.troupe`). */
  readonly dataDir?: string;
  /** Environment (default `process.env`): `TROUPE_HOME`, `TROUPE_MODEL_*`, `DIO_URL`, `DIO_TOKEN`, `DIO_USER_ID`. */
  readonly env?: DemoEnv;
  /** Diagnostics (default: silent). */
  readonly logger?: Logger;
}

/**
 * A configuration mistake the player can fix (`code` is stable): thrown by {@link composeDemo}.
 * - `DEMO_CONFIG_INVALID` — e.g. `DIO_URL` without `DIO_TOKEN`.
 */
export class DemoConfigError extends Error {
  /** Stable code. */
  readonly code = 'DEMO_CONFIG_INVALID';

  /** @param message - what to change */
  constructor(message: string) {
    super(message);
    this.name = 'DemoConfigError';
  }
}

/** How the demo reaches its DIO service. */
export interface DemoDio {
  /** Base URL of the service (in-process on a loopback port unless `DIO_URL` is set). */
  readonly url: string;
  /** The player's user id and bearer token at the service. */
  readonly userId: string;
  readonly authorization: string;
  /** The character prompt DIO compiles. */
  readonly targetPromptId: string;
  /** The in-process service, when the demo started one. */
  readonly service: RunningDioService | undefined;
}

/** The composed demo: every package wired together, ready to run turns. */
export interface Demo {
  readonly harness: Harness;
  readonly dataDir: string;
  readonly storage: ReturnType<typeof fsStorage>;
  readonly workspaces: StoryWorkspaces;
  readonly models: ModelRegistry;
  /** Id of the default model (e.g. `offline` or `openai-compatible:qwen2.5`). */
  readonly modelId: string;
  readonly dio: DemoDio;
  /** The character the actor plays (`{{char}}`), the speaker name the CLI prints. */
  readonly characterName: string;
  /** A turn input carrying the demo player's identity, DIO authorization and the director scenario. */
  turnInput(sessionId: string, text: string, extra?: Partial<TurnInput>): TurnInput;
  /** Closes the harness (aborting background waits), then the in-process DIO service. */
  close(): Promise<void>;
}

/**
 * The demo's data directory: the option, else `TROUPE_HOME`, else `~/.troupe`.
 * @param options - demo options
 */
export function resolveDataDir(options: DemoOptions = {}): string {
  const env = options.env ?? process.env;
  return resolve(options.dataDir ?? env.TROUPE_HOME ?? join(homedir(), '.troupe'));
}

/**
 * The composition root: storage on disk, models from the environment (offline by default), the
 * reference DIO service in-process on a loopback port (or `DIO_URL`), and the assembler, DIO and
 * story plugins in one harness.
 * @param options - data directory, environment, logger
 * @returns the running demo; call `close()` when done
 * @throws {DemoConfigError} DEMO_CONFIG_INVALID when `DIO_URL` is set without `DIO_TOKEN`
 */
export async function composeDemo(options: DemoOptions = {}): Promise<Demo> {
  const env = options.env ?? process.env;
  const logger = options.logger ?? silentLogger;
  const dataDir = resolveDataDir(options);
  const storage = fsStorage({ root: dataDir });
  const models = modelRegistryFromEnv({ env, fallback: offlineModel() });
  const dio = await connectDio(env, dataDir, logger);
  try {
    const harness = await createHarness({
      models,
      sessionLog: storage.sessions,
      trees: storage.trees,
      logger,
      scenario: { preActorDirector: true },
      plugins: [
        dioPlugin({ baseUrl: dio.url, targetPromptId: dio.targetPromptId, language: 'zh' }),
        storyPlugin(),
        actorAssemblerPlugin({ preset: demoPreset, char: LIA_CHARACTER_NAME, user: 'Traveler' }),
      ],
    });
    return {
      harness,
      dataDir,
      storage,
      workspaces: new StoryWorkspaces(storage.trees),
      models,
      modelId: models.resolve().id,
      dio,
      characterName: LIA_CHARACTER_NAME,
      turnInput: (sessionId, text, extra = {}) => ({
        sessionId,
        text,
        userId: dio.userId,
        authorization: dio.authorization,
        ...extra,
      }),
      close: async () => {
        await harness.close();
        await dio.service?.close();
      },
    };
  } catch (error) {
    await dio.service?.close();
    throw error;
  }
}

/** Starts the reference service in-process (or uses `DIO_URL`) and registers Lia's base prompt. */
async function connectDio(env: DemoEnv, dataDir: string, logger: Logger): Promise<DemoDio> {
  const userId = env.DIO_USER_ID ?? 'player-1';
  if (env.DIO_URL) {
    if (!env.DIO_TOKEN) throw new DemoConfigError('DIO_URL is set but DIO_TOKEN is not: give the bearer token of your DIO service user');
    return { url: env.DIO_URL, userId, authorization: `Bearer ${env.DIO_TOKEN}`, targetPromptId: LIA_TARGET_PROMPT_ID, service: undefined };
  }
  // Fresh tokens per run: the in-process service only listens on loopback for this process.
  const userToken = randomBytes(18).toString('base64url');
  const adminToken = randomBytes(18).toString('base64url');
  const service = await startDioService(
    {
      port: 0,
      host: '127.0.0.1',
      dataDir: join(dataDir, 'dio-service'),
      tokens: new Map([[userToken, userId]]),
      adminToken,
      model: env.TROUPE_MODEL_BASE_URL && env.TROUPE_MODEL
        ? { baseUrl: env.TROUPE_MODEL_BASE_URL, model: env.TROUPE_MODEL, apiKey: env.TROUPE_MODEL_API_KEY }
        : undefined,
    },
    logger.child({ component: 'dio-service' }),
  );
  const response = await fetch(`${service.url}/v1/prompts/${LIA_TARGET_PROMPT_ID}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content: LIA_CHARACTER_PROMPT, characterName: LIA_CHARACTER_NAME }),
  });
  if (!response.ok) {
    await service.close();
    throw new Error(`Could not register the base prompt with the DIO service: HTTP ${response.status} ${await response.text()}`);
  }
  return { url: service.url, userId, authorization: `Bearer ${userToken}`, targetPromptId: LIA_TARGET_PROMPT_ID, service };
}
