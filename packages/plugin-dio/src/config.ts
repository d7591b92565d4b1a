import * as z from 'zod';
import { DIO_ID_PATTERN } from './wire.js';

/** Schema of the plugin's serialisable configuration (validated at boot). */
export const DioPluginConfigSchema = z
  .object({
    /** The DIO service root, e.g. `http://127.0.0.1:8787`. */
    baseUrl: z.url({ protocol: /^https?$/ }),
    /** Timeout of one HTTP request (ms). */
    requestTimeoutMs: z.number().int().positive().max(600_000).default(5_000),
    /** Total time the next-turn lookup may add to a turn, retries included (ms). */
    lookupTimeoutMs: z.number().int().positive().max(60_000).default(1_500),
    /**
     * How long `schedule_dio` may hold the turn while submitting, retries included (ms). What is
     * left of `scheduleBudgetMs` is retried in the background.
     */
    scheduleTimeoutMs: z.number().int().positive().max(60_000).default(1_500),
    /** Total time to get a requirement accepted, critical path and background together (ms). */
    scheduleBudgetMs: z.number().int().positive().max(3_600_000).default(15_000),
    /** Background wait budget for a scheduled task (ms, default 16 minutes). */
    waitBudgetMs: z.number().int().positive().default(16 * 60 * 1000),
    /** Task polling interval (ms). */
    pollIntervalMs: z.number().int().positive().default(1_000),
    /** Target character prompt; a turn's `attributes.targetPromptId` overrides it. */
    targetPromptId: z.string().regex(DIO_ID_PATTERN).optional(),
    /** Language tag sent with requirements; a turn's `attributes.language` overrides it. */
    language: z.string().regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/).default('zh'),
  })
  .strict();

/** Configuration as written by the app. */
export type DioPluginConfigInput = z.input<typeof DioPluginConfigSchema>;
/** Configuration after validation (defaults filled in). */
export type DioPluginConfig = z.output<typeof DioPluginConfigSchema>;
