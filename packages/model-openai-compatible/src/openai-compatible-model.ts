import { abortReason, type ChatModel, type ChatRequest, type ChatResponse, type ChatStreamPart, throwIfAborted } from '@troupe/kernel';
import OpenAI from 'openai';
import * as z from 'zod';
import { type OpenAICompatibleConfig, type OpenAICompatibleOptions, resolveOpenAICompatibleConfig } from './config.js';
import { toModelError } from './map-error.js';
import { ModelError } from './model-error.js';
import { withRetries } from './retry-policy.js';
import { StreamAccumulator, toUsage } from './stream-accumulator.js';
import { fromWireFinishReason, parseToolArguments, toWireBody } from './to-wire.js';
import { ChunkSchema, CompletionSchema } from './wire-schemas.js';

/** Provider id used in model ids and registries. */
export const OPENAI_COMPATIBLE_PROVIDER = 'openai-compatible';

/**
 * Creates a {@link ChatModel} for any OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp
 * server, LM Studio), built on the `openai` client with timeouts and our own cancellable retries
 * (see `retry-policy.ts`: the SDK's retry sleep would ignore the abort signal).
 * @param options - base URL, key, model and call settings; omitted ones come from `env`
 * @param env - environment to read `TROUPE_MODEL_*` from (default `process.env`)
 * @returns a model with id `openai-compatible:<model>` and a `stream` method
 * @throws {ModelError} MODEL_CONFIG_INVALID when the configuration is incomplete or malformed
 */
export function openAICompatibleModel(
  options: OpenAICompatibleOptions = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
): ChatModel {
  return new OpenAICompatibleModel(resolveOpenAICompatibleConfig(options, env));
}

class OpenAICompatibleModel implements ChatModel {
  readonly id: string;
  readonly #config: OpenAICompatibleConfig;
  readonly #client: OpenAI;

  constructor(config: OpenAICompatibleConfig) {
    this.#config = config;
    this.id = `${OPENAI_COMPATIBLE_PROVIDER}:${config.model}`;
    this.#client = new OpenAI({
      baseURL: config.baseURL,
      apiKey: config.apiKey,
      // Retries are ours (withRetries): the SDK's pause between attempts ignores the abort signal
      // and honours any Retry-After up to a minute.
      maxRetries: 0,
      timeout: config.timeoutMs,
      defaultHeaders: config.headers,
      // Failures surface as typed ModelErrors; the SDK's own console logging would only duplicate them.
      logLevel: 'off',
    });
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    throwIfAborted(request.signal);
    let raw: unknown;
    try {
      const body = toWireBody(request, this.#config, false, this.id);
      raw = await this.#create(body, request.signal);
    } catch (error) {
      if (request.signal.aborted) throw abortReason(request.signal);
      throw toModelError(error, this.id, this.#config.baseURL);
    }
    const parsed = CompletionSchema.safeParse(raw);
    if (!parsed.success) {
      throw new ModelError('MODEL_RESPONSE_INVALID', `${this.id}: the response is not an OpenAI chat completion: ${z.prettifyError(parsed.error)}`, {
        cause: parsed.error,
        modelId: this.id,
      });
    }
    const choice = parsed.data.choices[0]!;
    const toolCalls = (choice.message.tool_calls ?? []).map((call) => ({
      id: call.id,
      name: call.function.name,
      arguments: parseToolArguments(call.function.arguments),
    }));
    const finishReason = fromWireFinishReason(choice.finish_reason);
    return {
      text: choice.message.content ?? '',
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      ...(parsed.data.usage ? { usage: toUsage(parsed.data.usage) } : {}),
      ...(finishReason ? { finishReason } : {}),
    };
  }

  async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    throwIfAborted(request.signal);
    // Our own controller lets the idle timer cut a stalled stream; the caller's abort is forwarded.
    const internal = new AbortController();
    const forwardAbort = () => internal.abort(abortReason(request.signal));
    request.signal.addEventListener('abort', forwardAbort, { once: true });
    let idleFired = false;
    let idleTimer: ReturnType<typeof setTimeout> | undefined;
    const armIdleTimer = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        idleFired = true;
        internal.abort(new Error('stream idle timeout'));
      }, this.#config.streamIdleTimeoutMs);
    };
    const fail = (error: unknown): unknown => {
      if (request.signal.aborted) return abortReason(request.signal);
      if (idleFired) {
        return new ModelError('MODEL_TIMEOUT', `${this.id}: the stream went silent for ${this.#config.streamIdleTimeoutMs} ms.`, { modelId: this.id });
      }
      return toModelError(error, this.id, this.#config.baseURL);
    };
    try {
      const accumulator = new StreamAccumulator();
      let chunks: AsyncIterable<unknown>;
      try {
        const body = toWireBody(request, this.#config, true, this.id);
        chunks = (await this.#create(body, internal.signal)) as unknown as AsyncIterable<unknown>;
      } catch (error) {
        throw fail(error);
      }
      armIdleTimer();
      try {
        for await (const raw of chunks) {
          armIdleTimer();
          const chunk = ChunkSchema.safeParse(raw);
          if (!chunk.success) {
            throw new ModelError('MODEL_STREAM_MALFORMED', `${this.id}: a streamed chunk is not an OpenAI chunk: ${z.prettifyError(chunk.error)}`, {
              cause: chunk.error,
              modelId: this.id,
              details: { chunk: raw },
            });
          }
          const text = accumulator.add(chunk.data);
          if (text) yield { type: 'text-delta', text };
        }
      } catch (error) {
        throw fail(error);
      }
      // The SDK ends iteration quietly when its signal aborts, so check why the loop ended.
      if (request.signal.aborted || idleFired) throw fail(undefined);
      if (!accumulator.finished) {
        throw new ModelError('MODEL_STREAM_MALFORMED', `${this.id}: the stream ended before the model finished (no finish_reason).`, { modelId: this.id });
      }
      yield { type: 'finish', response: accumulator.response() };
    } finally {
      clearTimeout(idleTimer);
      request.signal.removeEventListener('abort', forwardAbort);
      // Closes the connection when the consumer stops early.
      if (!internal.signal.aborted) internal.abort();
    }
  }

  // One request per attempt, retried by our policy (every pause listens to `signal`).
  #create(body: unknown, signal: AbortSignal): Promise<unknown> {
    const settings = { maxRetries: this.#config.maxRetries, maxRetryAfterMs: this.#config.maxRetryAfterMs };
    return withRetries(settings, signal, this.id, () =>
      this.#client.chat.completions.create(body as never, { signal, maxRetries: 0, timeout: this.#config.timeoutMs }),
    );
  }
}
