import { abortReason, throwIfAborted } from '@troupe/kernel/util';
import { type ChatModel, type ChatRequest, type ChatResponse, type ChatStreamPart, type Clock, formatIssues, systemClock } from '@troupe/kernel';
import * as z from 'zod';
import { hashText, seededRandom } from './hash.js';
import { OfflineModelError } from './offline-model-error.js';
import { answer } from './stage-router.js';

/** Options of {@link offlineModel}. */
export interface OfflineModelOptions {
  /** Fixed simulated latency per call in ms (default 0: answer at once). */
  readonly latencyMs?: number;
  /** Extra latency drawn deterministically from [0, jitterMs] per request (default 0). */
  readonly jitterMs?: number;
  /** Seed for the jitter (default 0); same seed + same request → same delay. */
  readonly seed?: number;
  /** Code points per streamed `text-delta` (default 12). */
  readonly chunkSize?: number;
  /** Clock used for the latency; defaults to the kernel's `systemClock` (tests pass `ManualClock`). */
  readonly clock?: Clock;
}

const OptionsSchema = z.object({
  latencyMs: z.number().int().min(0).max(600_000).optional(),
  jitterMs: z.number().int().min(0).max(600_000).optional(),
  seed: z.number().int().optional(),
  chunkSize: z.number().int().min(1).max(10_000).optional(),
});

/** The id every offline model reports. */
export const OFFLINE_MODEL_ID = 'offline';

/**
 * Creates the deterministic offline model: a simulation of a chat model for demos and tests that
 * needs no model server. It recognises `meta.stage` (`director`, `actor`, `story/*`,
 * `dio/compile`) and JSON Schema requests, never reads the time or randomness, and honours abort.
 * @param options - simulated latency, jitter seed, stream chunk size and clock
 * @returns a {@link ChatModel} with id `offline`
 * @throws {OfflineModelError} OFFLINE_OPTIONS_INVALID when an option is out of range
 */
export function offlineModel(options: OfflineModelOptions = {}): ChatModel {
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new OfflineModelError('OFFLINE_OPTIONS_INVALID', `Invalid offline model options: ${formatIssues(parsed.error)}`);
  }
  return new OfflineModel(parsed.data, options.clock ?? systemClock);
}

/** The context window the offline model reports (`capabilities.contextTokens`): effectively unlimited. */
const OFFLINE_CONTEXT_TOKENS = 10_000_000;

class OfflineModel implements ChatModel {
  readonly id = OFFLINE_MODEL_ID;
  // A simulation reads any prompt: the context budget never trims history for it.
  readonly capabilities = { contextTokens: OFFLINE_CONTEXT_TOKENS } as const;
  readonly #options: z.infer<typeof OptionsSchema>;
  readonly #clock: Clock;

  constructor(options: z.infer<typeof OptionsSchema>, clock: Clock) {
    this.#options = options;
    this.#clock = clock;
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    throwIfAborted(request.signal);
    await this.#simulateLatency(request);
    throwIfAborted(request.signal);
    return withUsage(request, answer(request));
  }

  async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    const response = await this.generate(request);
    const points = Array.from(response.text);
    const size = this.#options.chunkSize ?? 12;
    for (let start = 0; start < points.length; start += size) {
      if (request.signal.aborted) throw abortReason(request.signal);
      yield { type: 'text-delta', text: points.slice(start, start + size).join('') };
    }
    if (request.signal.aborted) throw abortReason(request.signal);
    yield { type: 'finish', response };
  }

  async #simulateLatency(request: ChatRequest): Promise<void> {
    const base = this.#options.latencyMs ?? 0;
    const jitter = this.#options.jitterMs ?? 0;
    if (base === 0 && jitter === 0) return;
    const draw = seededRandom(hashText(fingerprint(request), this.#options.seed ?? 0))();
    const delay = base + Math.floor(draw * (jitter + 1));
    if (delay > 0) await this.#clock.sleep(delay, request.signal);
  }
}

function withUsage(request: ChatRequest, response: Omit<ChatResponse, 'usage'>): ChatResponse {
  // A rough, deterministic estimate (≈4 characters per token) so usage accounting has numbers.
  const inputChars = request.messages.reduce((total, message) => total + message.content.length, 0);
  return { ...response, usage: { inputTokens: Math.ceil(inputChars / 4), outputTokens: Math.ceil(response.text.length / 4) } };
}

function fingerprint(request: ChatRequest): string {
  return `${request.meta.stage}\u0000${request.messages.map((message) => `${message.role}:${message.content}`).join('\u0000')}`;
}
