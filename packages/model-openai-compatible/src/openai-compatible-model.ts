import { abortReason, extractJson, linkedController, runWithin, throwIfAborted } from '@troupe/kernel/util';
import { type ChatModel, type ChatRequest, type ChatResponse, type ChatStreamPart, formatIssues, type ModelCapabilities, systemClock, type Tokenizer } from '@troupe/kernel';
import OpenAI from 'openai';
import { type OpenAICompatibleConfig, type OpenAICompatibleOptions, resolveOpenAICompatibleConfig, type StructuredOutputLevel } from './config.js';
import { splitInlineReasoning } from './inline-reasoning.js';
import { isRequestRejection, isToolsRejection, serverMessageOf, TIMEOUT_SETTING, toModelError } from './map-error.js';
import { ModelError } from './model-error.js';
import { modelTokenizer } from './model-tokenizer.js';
import { withRetries } from './retry-policy.js';
import { normalizingFetch } from './server-error.js';
import { ServerKnowledge } from './server-knowledge.js';
import { StreamAccumulator, toUsage } from './stream-accumulator.js';
import { levelsToTry } from './structured-output.js';
import { fromWireFinishReason, parseToolArguments, toWireBody } from './to-wire.js';
import { ChunkSchema, CompletionSchema, reasoningText } from './wire-schemas.js';

/** Provider id used in model ids and registries. */
export const OPENAI_COMPATIBLE_PROVIDER = 'openai-compatible';

// A downgrade from a level that already worked needs the server to name the format as the problem.
const FORMAT_PROBLEM = /response_format|json_schema|json_object|schema|grammar|structured/i;
const STREAM_OPTIONS = /stream_options|include_usage/i;

/**
 * Creates a {@link ChatModel} for any OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp
 * server, LM Studio, Mistral), built on the `openai` client with timeouts and our own cancellable
 * retries (see `retry-policy.ts`: the SDK's retry sleep would ignore the abort signal).
 * It separates reasoning from the answer, reads every server's error shape, and learns what the
 * server refuses (`stream_options`, a structured output level, tools) — see the README.
 * @param options - base URL, key, model and call settings; omitted ones come from `env`
 * @param env - environment to read `TROUPE_MODEL_*` from (default `process.env`)
 * @param envPrefix - prefix of the environment variables (default `TROUPE_MODEL`)
 * @returns a model with id `openai-compatible:<model>`, a `stream` method, `capabilities` and a `tokenizer` when one fits
 * @throws {ModelError} MODEL_CONFIG_INVALID when the configuration is incomplete or malformed
 */
export function openAICompatibleModel(
  options: OpenAICompatibleOptions = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
  envPrefix?: string,
): ChatModel {
  return new OpenAICompatibleModel(resolveOpenAICompatibleConfig(options, env, envPrefix));
}

class OpenAICompatibleModel implements ChatModel {
  readonly id: string;
  readonly tokenizer: Tokenizer | undefined;
  readonly #config: OpenAICompatibleConfig;
  readonly #client: OpenAI;
  readonly #knowledge: ServerKnowledge;

  constructor(config: OpenAICompatibleConfig) {
    this.#config = config;
    this.id = `${OPENAI_COMPATIBLE_PROVIDER}:${config.model}`;
    this.#knowledge = new ServerKnowledge(config);
    this.tokenizer = modelTokenizer(config.tokenizer, config.model);
    this.#client = new OpenAI({
      baseURL: config.baseURL,
      apiKey: config.apiKey,
      // Retries are ours (withRetries): the SDK's pause between attempts ignores the abort signal
      // and honours any Retry-After up to a minute.
      maxRetries: 0,
      timeout: config.timeoutMs,
      defaultHeaders: config.headers,
      // Every server's error body reaches the client in OpenAI's shape, with the server's message.
      fetch: normalizingFetch(),
      // Failures surface as typed ModelErrors; the SDK's own console logging would only duplicate them.
      logLevel: 'off',
    });
  }

  get capabilities(): ModelCapabilities {
    return this.#knowledge.capabilities;
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    throwIfAborted(request.signal);
    this.#checkTools(request);
    let raw: unknown;
    try {
      raw = await this.#withJsonLadder(request, (jsonLevel) =>
        this.#create(toWireBody(request, this.#config, { stream: false, streamUsage: false, ...(jsonLevel ? { jsonLevel } : {}) }, this.id), request.signal),
      );
    } catch (error) {
      if (request.signal.aborted) throw abortReason(request.signal);
      throw this.#toError(error, request);
    }
    const parsed = CompletionSchema.safeParse(raw);
    if (!parsed.success) {
      throw new ModelError('MODEL_RESPONSE_INVALID', `${this.id}: the response is not an OpenAI chat completion: ${formatIssues(parsed.error)}`, {
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
    const fieldReasoning = reasoningText(choice.message.reasoning_content) || reasoningText(choice.message.reasoning);
    const content = choice.message.content ?? '';
    let text = content;
    let inlineReasoning = '';
    if (this.#config.thinkTags !== 'off') {
      const split = this.#knowledge.startsInReasoning ? this.#splitStartingInReasoning(content) : splitInlineReasoning(content);
      text = split.text;
      inlineReasoning = split.reasoning;
      if (split.bareClose && this.#config.thinkTags === 'auto') this.#knowledge.startsInReasoning = true;
    }
    const reasoning = fieldReasoning && inlineReasoning ? `${fieldReasoning}\n${inlineReasoning}` : fieldReasoning || inlineReasoning;
    return this.#finish(request, {
      text,
      ...(reasoning ? { reasoning } : {}),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      ...(parsed.data.usage ? { usage: toUsage(parsed.data.usage) } : {}),
      ...(finishReason ? { finishReason } : {}),
    });
  }

  async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    throwIfAborted(request.signal);
    this.#checkTools(request);
    // Our own controller closes the connection when the stream stalls or the consumer stops
    // early; the caller's abort is forwarded to it.
    const { controller: internal, dispose: unlink } = linkedController(request.signal);
    const idleMs = this.#config.streamIdleTimeoutMs;
    const firstTokenMs = this.#config.timeoutMs;
    const silent = () => new ModelError('MODEL_TIMEOUT', `${this.id}: the stream went silent for ${idleMs} ms (TROUPE_MODEL_STREAM_IDLE_TIMEOUT_MS).`, { modelId: this.id });
    const noFirstToken = () =>
      new ModelError('MODEL_TIMEOUT', `${this.id}: the model did not start answering within ${firstTokenMs} ms (${TIMEOUT_SETTING}).`, { modelId: this.id });
    const fail = (error: unknown): unknown => {
      if (request.signal.aborted) return abortReason(request.signal);
      return this.#toError(error, request);
    };
    let iterator: AsyncIterator<unknown> | undefined;
    try {
      const accumulator = new StreamAccumulator({ thinkTags: this.#config.thinkTags !== 'off', startsInReasoning: this.#knowledge.startsInReasoning });
      let opened: { chunks: AsyncIterable<unknown>; streamUsage: boolean };
      try {
        opened = await this.#openStream(request, internal.signal);
      } catch (error) {
        throw fail(error);
      }
      iterator = opened.chunks[Symbol.asyncIterator]();
      const chunks = iterator;
      for (;;) {
        let next: IteratorResult<unknown>;
        try {
          // The idle timeout is the kernel's deadline, per chunk: each wait for the next chunk
          // gets `idleMs` (a slow but alive stream is read to the end), a cancel wins at once.
          // Until the model said something (a role-only chunk is no answer yet), the wait is the
          // request's: reading a long prompt or loading a model comes before the first token.
          const answering = accumulator.received;
          next = await runWithin(systemClock, answering ? idleMs : firstTokenMs, request.signal, answering ? silent : noFirstToken, () => chunks.next());
        } catch (error) {
          throw fail(error);
        }
        if (next.done) break;
        const chunk = ChunkSchema.safeParse(next.value);
        if (!chunk.success) {
          throw new ModelError('MODEL_STREAM_MALFORMED', `${this.id}: a streamed chunk is not an OpenAI chunk: ${formatIssues(chunk.error)}`, {
            cause: chunk.error,
            modelId: this.id,
            details: { chunk: next.value },
          });
        }
        yield* parts(accumulator.add(chunk.data));
      }
      // The SDK ends iteration quietly when its signal aborts, so check why the loop ended.
      if (request.signal.aborted) throw fail(undefined);
      yield* parts(accumulator.end());
      // A stream may end (or send [DONE]) without a finish reason — gateways and proxies do;
      // what matters is whether the model said anything.
      if (!accumulator.received && accumulator.filtered) {
        throw new ModelError('MODEL_CONTENT_FILTERED', `${this.id}: the server's content filter ended the answer before any text (finish_reason: content_filter).`, { modelId: this.id });
      }
      if (!accumulator.received) {
        throw new ModelError('MODEL_STREAM_MALFORMED', `${this.id}: the stream ended before the model answered (no content, reasoning or tool call).`, {
          modelId: this.id,
        });
      }
      if (accumulator.sawBareClose && this.#config.thinkTags === 'auto') this.#knowledge.startsInReasoning = true;
      if (opened.streamUsage && this.#knowledge.streamUsage === 'unknown') this.#knowledge.streamUsage = 'accepted';
      yield { type: 'finish', response: this.#finish(request, accumulator.response()) };
    } finally {
      unlink();
      // Closes the connection when the stream stalled, failed or the consumer stopped early.
      if (!internal.signal.aborted) internal.abort();
      // Lets the SDK release the response; not awaited, since a stalled read settles only now.
      if (iterator?.return) iterator.return().catch(() => undefined);
    }
  }

  /** Opens a stream; a server that refuses `stream_options` gets one retry without it, remembered. */
  async #openStream(request: ChatRequest, signal: AbortSignal): Promise<{ chunks: AsyncIterable<unknown>; streamUsage: boolean }> {
    return this.#withJsonLadder(request, async (jsonLevel) => {
      const open = async (streamUsage: boolean) => {
        const body = toWireBody(request, this.#config, { stream: true, streamUsage, ...(jsonLevel ? { jsonLevel } : {}) }, this.id);
        return { chunks: (await this.#create(body, signal)) as AsyncIterable<unknown>, streamUsage };
      };
      const streamUsage = this.#knowledge.sendStreamUsage;
      try {
        return await open(streamUsage);
      } catch (error) {
        if (signal.aborted || !streamUsage || !this.#knowledge.mayDropStreamUsage || !isRequestRejection(error, STREAM_OPTIONS)) throw error;
        // Mistral answers 422 "extra inputs are not permitted" to stream_options; other servers 400.
        const retried = await open(false);
        this.#knowledge.streamUsage = 'refused';
        return retried;
      }
    });
  }

  /**
   * Runs one request on the structured output ladder: a JSON request that the server refuses
   * (400/422) on one level is sent again on the next; the level that worked is remembered.
   */
  async #withJsonLadder<T>(request: ChatRequest, attempt: (level: StructuredOutputLevel | undefined) => Promise<T>): Promise<T> {
    if (!request.json) return attempt(undefined);
    const hasSchema = typeof request.json === 'object' && request.json.schema !== undefined;
    const levels = levelsToTry(this.#config.structuredOutput, this.#knowledge.jsonLevel, hasSchema);
    for (let index = 0; ; index++) {
      const level = levels[index]!;
      try {
        const result = await attempt(level);
        if (this.#config.structuredOutput === 'auto') this.#knowledge.jsonLevel = level;
        return result;
      } catch (error) {
        if (request.signal.aborted || index + 1 >= levels.length || !isRequestRejection(error, FORMAT_PROBLEM)) throw error;
        if (this.#knowledge.jsonLevel === level && !FORMAT_PROBLEM.test(serverMessageOf(error))) throw error;
      }
    }
  }

  /** Clean text, a clear error for reasoning without an answer, JSON extracted for JSON requests. */
  #finish(request: ChatRequest, response: ChatResponse): ChatResponse {
    if (response.toolCalls?.length) this.#knowledge.tools = true;
    if (response.text.trim() === '' && !response.toolCalls?.length && response.reasoning?.trim()) {
      throw new ModelError(
        'MODEL_REASONING_ONLY',
        `${this.id}: the model reasoned but gave no answer${response.finishReason === 'length' ? ' (it ran out of response length while thinking; raise the response length)' : ''}.`,
        { modelId: this.id, details: { reasoning: response.reasoning, ...(response.finishReason ? { finishReason: response.finishReason } : {}) } },
      );
    }
    if (!request.json) return response;
    const json = extractJson(response.text);
    return json === undefined || json === response.text ? response : { ...response, text: json };
  }

  #splitStartingInReasoning(content: string): { text: string; reasoning: string; bareClose: boolean } {
    const close = content.indexOf('</think>');
    if (close < 0) return { ...splitInlineReasoning(content), bareClose: false };
    const opened = content.trimStart().startsWith('<think>');
    const reasoning = content.slice(opened ? content.indexOf('<think>') + 7 : 0, close);
    return { text: content.slice(close + 8).trimStart(), reasoning, bareClose: !opened };
  }

  #checkTools(request: ChatRequest): void {
    if (request.tools?.length && this.capabilities.tools === false) {
      throw new ModelError('MODEL_TOOLS_UNSUPPORTED', `${this.id}: tool calling is not available on this server (TROUPE_MODEL_TOOLS or an earlier refusal); use a JSON fallback.`, {
        modelId: this.id,
      });
    }
  }

  #toError(error: unknown, request: ChatRequest): ModelError {
    if (request.tools?.length && this.#config.tools !== 'on' && isToolsRejection(error)) {
      this.#knowledge.tools = false;
      return new ModelError('MODEL_TOOLS_UNSUPPORTED', `${this.id}: the server refused tool calling (HTTP ${error.status}): ${serverMessageOf(error)}`, {
        cause: error,
        modelId: this.id,
        status: error.status,
      });
    }
    return toModelError(error, this.id, this.#config.baseURL);
  }

  // One request per attempt, retried by our policy (every pause listens to `signal`).
  #create(body: unknown, signal: AbortSignal): Promise<unknown> {
    const settings = { maxRetries: this.#config.maxRetries, maxRetryAfterMs: this.#config.maxRetryAfterMs };
    return withRetries(settings, signal, this.id, () =>
      this.#client.chat.completions.create(body as never, { signal, maxRetries: 0, timeout: this.#config.timeoutMs }),
    );
  }
}

function* parts(released: { text: string; reasoning: string }): Iterable<ChatStreamPart> {
  if (released.reasoning) yield { type: 'reasoning-delta', text: released.reasoning };
  if (released.text) yield { type: 'text-delta', text: released.text };
}
