import { defineErrorClass, formatIssues } from '@troupe/kernel';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DioUserIdSchema } from '@troupe/plugin-dio';
import * as z from 'zod';

/** The service's configuration, read from the environment by {@link readConfig}. */
export interface ServiceConfig {
  readonly port: number;
  /** Host to bind; loopback by default. */
  readonly host: string;
  /** Where versions and tasks are kept (unless `databaseUrl` is set). */
  readonly dataDir: string;
  /** `DIO_DATABASE_URL`: keep versions and tasks in PostgreSQL (`@troupe/storage-postgres`) instead of `dataDir`. */
  readonly databaseUrl?: string;
  /** Bearer token → user id. */
  readonly tokens: ReadonlyMap<string, string>;
  readonly adminToken: string | undefined;
  /** Most compilations at once (`DIO_MAX_CONCURRENT_COMPILES`, default 4); more tasks queue, still `processing`. */
  readonly maxConcurrentCompiles?: number;
  /** `TROUPE_MODEL_*` settings for a real model; absent → the offline model. */
  readonly model: { readonly baseUrl: string; readonly model: string; readonly apiKey: string | undefined } | undefined;
}

const TokenPattern = /^[\x21-\x2b\x2d-\x39\x3b-\x7e]{8,512}$/; // printable ASCII without `,` and `:`

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8787),
  DIO_HOST: z.string().min(1).default('127.0.0.1'),
  DIO_DATA_DIR: z.string().min(1).optional(),
  DIO_DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL').optional(),
  DIO_TOKENS: z.string().default(''),
  DIO_MAX_CONCURRENT_COMPILES: z.coerce.number().int().min(1).max(64).default(4),
  DIO_ADMIN_TOKEN: z.string().regex(TokenPattern, 'use 8–512 printable ASCII characters without "," or ":"').optional(),
  TROUPE_MODEL_BASE_URL: z.url().optional(),
  TROUPE_MODEL: z.string().min(1).optional(),
  TROUPE_MODEL_API_KEY: z.string().min(1).optional(),
});

/** A configuration problem, reported at startup with every bad variable named. */
export class ConfigError extends defineErrorClass<'DIO_SERVICE_CONFIG_INVALID'>('DioServiceConfigError') {
  /** @param message - names each bad variable */
  constructor(message: string) {
    super('DIO_SERVICE_CONFIG_INVALID', message);
  }
}

/**
 * Reads the environment: `PORT` (8787), `DIO_HOST` (127.0.0.1), `DIO_DATA_DIR`
 * (`~/.troupe/dio-service`), `DIO_DATABASE_URL` (PostgreSQL instead of the data folder), `DIO_TOKENS` (`token:userId,...`), `DIO_ADMIN_TOKEN`,
 * `DIO_MAX_CONCURRENT_COMPILES` (4), `TROUPE_MODEL_BASE_URL` + `TROUPE_MODEL` (+ `TROUPE_MODEL_API_KEY`)
 * for a real model.
 * @param env - the environment (default `process.env`)
 * @returns the configuration
 * @throws {ConfigError} DIO_SERVICE_CONFIG_INVALID naming each bad variable (never echoing secrets)
 */
export function readConfig(env: Readonly<Record<string, string | undefined>> = process.env): ServiceConfig {
  const parsed = EnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== '')));
  if (!parsed.success) {
    throw new ConfigError(`Invalid environment: ${formatIssues(parsed.error)}`);
  }
  const values = parsed.data;
  const tokens = new Map<string, string>();
  for (const pair of values.DIO_TOKENS.split(',').map((entry) => entry.trim()).filter(Boolean)) {
    // Tokens never contain ":", so the first one separates: the user id may hold ":" and spaces
    // (any user id the kernel accepts, except "," which separates entries).
    const separator = pair.indexOf(':');
    const token = pair.slice(0, separator);
    const userId = pair.slice(separator + 1);
    if (separator <= 0 || !TokenPattern.test(token) || !DioUserIdSchema.safeParse(userId).success) {
      throw new ConfigError(`Invalid DIO_TOKENS entry #${tokens.size + 1}: use "token:userId" (token 8–512 printable characters without "," or ":", userId 1–256 characters without ",")`);
    }
    if (tokens.has(token)) throw new ConfigError(`DIO_TOKENS lists the same token twice (entry #${tokens.size + 1})`);
    tokens.set(token, userId);
  }
  if (values.TROUPE_MODEL_BASE_URL && !values.TROUPE_MODEL) throw new ConfigError('TROUPE_MODEL_BASE_URL needs TROUPE_MODEL');
  return {
    port: values.PORT,
    host: values.DIO_HOST,
    dataDir: values.DIO_DATA_DIR ?? join(homedir(), '.troupe', 'dio-service'),
    ...(values.DIO_DATABASE_URL ? { databaseUrl: values.DIO_DATABASE_URL } : {}),
    tokens,
    adminToken: values.DIO_ADMIN_TOKEN,
    maxConcurrentCompiles: values.DIO_MAX_CONCURRENT_COMPILES,
    model:
      values.TROUPE_MODEL_BASE_URL && values.TROUPE_MODEL
        ? { baseUrl: values.TROUPE_MODEL_BASE_URL, model: values.TROUPE_MODEL, apiKey: values.TROUPE_MODEL_API_KEY }
        : undefined,
  };
}
