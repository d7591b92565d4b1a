import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { startDioService, type RunningDioService } from '@troupe/dio-service';
import { type CloseBackgroundOptions, createHarness, defineErrorClass, type Harness, type Logger, type ModelRegistry, silentLogger, type TurnInput } from '@troupe/kernel';
import { describeError } from '@troupe/kernel/util';
import { offlineModel } from '@troupe/model-offline';
import { actorAssemblerPlugin } from '@troupe/plugin-actor-assembler';
import { DioSessionRequirementsToken, dioPlugin } from '@troupe/plugin-dio';
import { lorebookPlugin } from '@troupe/plugin-lorebook';
import { StoryWorkspaces, storyPlugin } from '@troupe/plugin-story';
import { demoPreset } from './demo-preset.js';
import { LIA_CHARACTER_NAME, LIA_CHARACTER_PROMPT, LIA_TARGET_PROMPT_ID } from './example/lia-character.js';
import { chatActorPlugin } from './library/chat-actor-plugin.js';
import { chatActorProfile, chatNames, characterPromptText, dioTargetPromptId } from './library/chat-setup.js';
import { type DemoLibrary, openDemoLibrary } from './library/demo-library.js';
import { withPresetGeneration } from './library/preset-generation.js';
import { sessionLore } from './library/session-lore.js';
import { ModelSettingsFile } from './settings/model-settings.js';
import { SwitchableModels } from './settings/model-registry-from-settings.js';
import { promptItemizationPlugin } from './prompt/prompt-itemization-plugin.js';
import { type DemoStorage, openDemoStorage } from './storage/demo-storage.js';

/** Environment variables the demo reads. */
export type DemoEnv = Readonly<Record<string, string | undefined>>;

/** Options of {@link composeDemo}. */
export interface DemoOptions {
  /** Where workspaces, sessions and the DIO service's data live (default `TROUPE_HOME` or `~/.troupe`). */
  readonly dataDir?: string;
  /**
   * Environment (default `process.env`): `TROUPE_HOME`, `TROUPE_DATABASE_URL` (workspaces and
   * sessions in PostgreSQL), `TROUPE_MODEL_*`, `DIO_URL`, `DIO_TOKEN`, `DIO_USER_ID`, `DIO_DATABASE_URL`.
   */
  readonly env?: DemoEnv;
  /** Diagnostics (default: silent). */
  readonly logger?: Logger;
}

/**
 * A configuration mistake the player can fix (`code` is stable): thrown by {@link composeDemo}.
 * - `DEMO_CONFIG_INVALID` — e.g. `DIO_URL` without `DIO_TOKEN`.
 */
export class DemoConfigError extends defineErrorClass<'DEMO_CONFIG_INVALID'>('DemoConfigError') {
  /** @param message - what to change */
  constructor(message: string) {
    super('DEMO_CONFIG_INVALID', message);
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
  /**
   * Registers (or replaces) a base character prompt with the in-process service; `undefined` for
   * an external service (`DIO_URL`), whose prompts its operator registers.
   */
  readonly registerPrompt: ((targetPromptId: string, content: string, characterName: string) => Promise<void>) | undefined;
}

/** The composed demo: every package wired together, ready to run turns. */
export interface Demo {
  readonly harness: Harness;
  readonly dataDir: string;
  /** Workspaces and sessions: the data folder, or PostgreSQL with `TROUPE_DATABASE_URL`. */
  readonly storage: DemoStorage;
  readonly workspaces: StoryWorkspaces;
  /** The models; replaced in place when model settings are saved. */
  readonly models: SwitchableModels & ModelRegistry;
  /** Id of the default model right now (e.g. `offline` or `openai-compatible:qwen2.5`). */
  readonly modelId: string;
  /** Characters, presets, personas and chats. */
  readonly library: DemoLibrary;
  /** The saved model connection (`<data>/settings/model.json`, mode 0600). */
  readonly settings: ModelSettingsFile;
  readonly dio: DemoDio;
  /** The character the actor plays (`{{char}}`), the speaker name the CLI prints. */
  readonly characterName: string;
  /** A turn input carrying the demo player's identity, DIO authorization and the director scenario. */
  turnInput(sessionId: string, text: string, extra?: Partial<TurnInput>): TurnInput;
  /**
   * The turn input of any session: for a library chat, DIO targets the chat's character (its base
   * prompt registered from the card first); when the chat's preset has no DIO slot, DIO is left
   * out of the turn. Other sessions get {@link Demo.turnInput}.
   */
  turnInputFor(sessionId: string, text: string, extra?: Partial<TurnInput>): Promise<TurnInput>;
  /** The DIO target prompt of a session: the chat character's, else the example character's. */
  dioTargetFor(sessionId: string): Promise<string>;
  /**
   * Finishes every session's committed turn whose postReview work (the story write-back) never
   * completed because the process died after the commit, and resumes the DIO background work
   * (a pending submission, a task wait) the last process left unfinished (call at start-up).
   * @returns how many turns were finished
   */
  finishCommittedTurns(): Promise<number>;
  /**
   * Closes the harness (a committed turn's write-back gets up to {@link CLOSE_DEADLINE_MS} to
   * finish, else the next start finishes it; background waits are aborted), then the in-process
   * DIO service. With `{mode: 'drain', timeoutMs}` background waits get that long to record their
   * outcome first.
   */
  close(options?: CloseBackgroundOptions): Promise<void>;
}

/** How long `close()` lets committed turns finish their postReview work before cutting it short. */
export const CLOSE_DEADLINE_MS = 3_000;

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
  const storage = await openDemoStorage(dataDir, env);
  const settings = new ModelSettingsFile(dataDir);
  const models = new SwitchableModels(env, offlineModel(), await settings.read().catch((error: unknown) => {
    // A broken settings file must not stop the app: it starts offline and the settings view says why.
    logger.warn('model settings ignored', { error: error instanceof Error ? error.message : String(error) });
    return {};
  }));
  const library = openDemoLibrary(dataDir);
  let dio: DemoDio;
  try {
    dio = await connectDio(env, dataDir, logger);
  } catch (error) {
    await storage.close();
    throw error;
  }
  const registered = new Map<string, string>();
  const ensureDioPrompt = async (targetPromptId: string, content: string, name: string) => {
    // Registered once per process and content; the service keeps it on disk across restarts.
    if (!dio.registerPrompt || registered.get(targetPromptId) === content) return;
    await dio.registerPrompt(targetPromptId, content, name);
    registered.set(targetPromptId, content);
  };
  const baseInput = (sessionId: string, text: string, extra: Partial<TurnInput> = {}): TurnInput => {
    // The saved context size and reply length are the chat's token budget (a turn's own wins).
    const tokenBudget = models.tokenBudget;
    return {
      sessionId,
      text,
      userId: dio.userId,
      authorization: dio.authorization,
      ...extra,
      ...(tokenBudget ? { scenario: { ...extra.scenario, tokenBudget: { ...tokenBudget, ...extra.scenario?.tokenBudget } } } : {}),
    };
  };
  // A turn without DIO: no player identity, so the DIO plugin leaves the turn alone; and no
  // director, whose only tool here is DIO's (offering it would fail the call on every turn).
  const inputWithoutDio = (sessionId: string, text: string, extra: Partial<TurnInput> = {}): TurnInput => {
    const { userId: _userId, authorization: _authorization, ...input } = baseInput(sessionId, text, extra);
    return { ...input, scenario: { ...input.scenario, preActorDirector: false } };
  };
  try {
    const harness = await createHarness({
      models,
      sessionLog: storage.sessions,
      trees: storage.trees,
      logger,
      scenario: { preActorDirector: true },
      plugins: [
        chatActorPlugin(async (sessionId) => {
          const chat = await library.chats.find(sessionId);
          return chat === undefined ? undefined : chatActorProfile(await library.setup(chat.id));
        }),
        dioPlugin({ baseUrl: dio.url, targetPromptId: dio.targetPromptId, language: 'zh' }),
        // World info: the chat character's own book plus the books attached to the session.
        lorebookPlugin({ books: (turn) => sessionLore(library, turn.sessionId, (key) => turn.events.findLatest(key)) }),
        storyPlugin(),
        actorAssemblerPlugin({ preset: demoPreset, char: LIA_CHARACTER_NAME, user: 'Traveler' }),
        // Last: it records the prompt every other assembler produced (the prompt view's source).
        promptItemizationPlugin(),
      ],
    });
    return {
      harness,
      dataDir,
      storage,
      workspaces: new StoryWorkspaces(storage.trees),
      models,
      get modelId() {
        return models.modelId;
      },
      library,
      settings,
      dio,
      characterName: LIA_CHARACTER_NAME,
      turnInput: baseInput,
      dioTargetFor: async (sessionId) => {
        const chat = await library.chats.find(sessionId);
        return chat === undefined ? dio.targetPromptId : dioTargetPromptId(chat.characterId);
      },
      turnInputFor: async (sessionId, text, extra = {}) => {
        const chat = await library.chats.find(sessionId);
        if (chat === undefined) return baseInput(sessionId, text, extra);
        const setup = await library.setup(chat.id);
        extra = withPresetGeneration(extra, setup.preset.settings, models.tokenBudget, models.resolve(extra.scenario?.actorModel).capabilities?.contextTokens);
        if (!setup.preset.dioAccepts) {
          // Without a DIO slot a compiled prompt would fail every turn; the preset view says why.
          return inputWithoutDio(sessionId, text, extra);
        }
        const targetPromptId = dioTargetPromptId(setup.character.id);
        const names = chatNames(setup);
        try {
          await ensureDioPrompt(targetPromptId, characterPromptText(setup.character.card.character, names), names.char);
        } catch (error) {
          // The chat still plays (without DIO) when the service refuses the card's prompt.
          logger.warn('DIO base prompt not registered; this turn runs without DIO', { targetPromptId, error: error instanceof Error ? error.message : String(error) });
          return inputWithoutDio(sessionId, text, extra);
        }
        return baseInput(sessionId, text, { ...extra, attributes: { ...extra.attributes, targetPromptId } });
      },
      finishCommittedTurns: async () => {
        let finished = 0;
        const dioWork = harness.resolve(DioSessionRequirementsToken);
        for (const sessionId of await storage.sessions.list()) {
          try {
            if (await harness.finishCommittedTurn(sessionId)) finished += 1;
          } catch (error) {
            logger.error('could not finish a committed turn', { sessionId, error: describeError(error) });
          }
          try {
            // A DIO submission or task wait the last process left running goes on now, not at the
            // session's next turn: the DIO view must not say "processing" for ever.
            await dioWork.resume({ sessionId, userId: dio.userId, authorization: dio.authorization });
          } catch (error) {
            logger.error('could not resume DIO background work', { sessionId, error: describeError(error) });
          }
        }
        return finished;
      },
      close: async (closeOptions = {}) => {
        await harness.close({ timeoutMs: CLOSE_DEADLINE_MS, ...closeOptions });
        await dio.service?.close();
        await storage.close();
      },
    };
  } catch (error) {
    await dio.service?.close();
    await storage.close();
    throw error;
  }
}

/** Starts the reference service in-process (or uses `DIO_URL`) and registers Lia's base prompt. */
async function connectDio(env: DemoEnv, dataDir: string, logger: Logger): Promise<DemoDio> {
  const userId = env.DIO_USER_ID ?? 'player-1';
  if (env.DIO_URL) {
    if (!env.DIO_TOKEN) throw new DemoConfigError('DIO_URL is set but DIO_TOKEN is not: give the bearer token of your DIO service user');
    return { url: env.DIO_URL, userId, authorization: `Bearer ${env.DIO_TOKEN}`, targetPromptId: LIA_TARGET_PROMPT_ID, service: undefined, registerPrompt: undefined };
  }
  // Fresh tokens per run: the in-process service only listens on loopback for this process.
  const userToken = randomBytes(18).toString('base64url');
  const adminToken = randomBytes(18).toString('base64url');
  const service = await startDioService(
    {
      port: 0,
      host: '127.0.0.1',
      dataDir: join(dataDir, 'dio-service'),
      ...(env.DIO_DATABASE_URL ? { databaseUrl: env.DIO_DATABASE_URL } : {}),
      tokens: new Map([[userToken, userId]]),
      adminToken,
      model: env.TROUPE_MODEL_BASE_URL && env.TROUPE_MODEL
        ? { baseUrl: env.TROUPE_MODEL_BASE_URL, model: env.TROUPE_MODEL, apiKey: env.TROUPE_MODEL_API_KEY }
        : undefined,
    },
    logger.child({ component: 'dio-service' }),
  );
  const registerPrompt = async (targetPromptId: string, content: string, characterName: string) => {
    const response = await fetch(`${service.url}/v1/prompts/${encodeURIComponent(targetPromptId)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content, characterName }),
    });
    if (!response.ok) throw new Error(`Could not register the base prompt "${targetPromptId}" with the DIO service: HTTP ${response.status} ${await response.text()}`);
  };
  try {
    await registerPrompt(LIA_TARGET_PROMPT_ID, LIA_CHARACTER_PROMPT, LIA_CHARACTER_NAME);
  } catch (error) {
    await service.close();
    throw error;
  }
  return { url: service.url, userId, authorization: `Bearer ${userToken}`, targetPromptId: LIA_TARGET_PROMPT_ID, service, registerPrompt };
}
