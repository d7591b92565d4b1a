import * as z from 'zod';

// The parts of OpenAI's chat completion wire format we read. Servers differ in what else they
// send, so objects are loose; what we rely on is checked.

const WireToolCall = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string().nullish() }),
});

const WireUsage = z.looseObject({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
});

/** A non-streaming `POST /chat/completions` response. */
export const CompletionSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({
          content: z.string().nullish(),
          // vLLM before 0.10, llama.cpp, LM Studio, DeepSeek: `reasoning_content`; vLLM 0.10+,
          // Ollama, OpenRouter: `reasoning`. Read only when a string.
          reasoning_content: z.unknown().optional(),
          reasoning: z.unknown().optional(),
          tool_calls: z.array(WireToolCall).nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: WireUsage.nullish(),
});

/** One streamed chunk (`data:` line) of a streaming response. */
export const ChunkSchema = z.looseObject({
  // A usage-only chunk has `choices: []`, and some gateways leave `choices` out entirely.
  choices: z.array(
    z.looseObject({
      index: z.number().optional(),
      delta: z
        .looseObject({
          content: z.string().nullish(),
          reasoning_content: z.unknown().optional(),
          reasoning: z.unknown().optional(),
          tool_calls: z
            .array(
              z.looseObject({
                index: z.number(),
                id: z.string().nullish(),
                function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
              }),
            )
            .nullish(),
        })
        .nullish(),
      finish_reason: z.string().nullish(),
    }),
  ).nullish().transform((choices) => choices ?? []),
  usage: WireUsage.nullish(),
});

/**
 * A reasoning field's text: servers send a string; anything else (absent, null, a structured
 * `reasoning_details` elsewhere) counts as none.
 * @param value - `reasoning_content` or `reasoning` as sent
 */
export function reasoningText(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A parsed streamed chunk. */
export type WireChunk = z.infer<typeof ChunkSchema>;
/** A parsed completion. */
export type WireCompletion = z.infer<typeof CompletionSchema>;
/** Usage as the server reports it. */
export type WireUsageValue = z.infer<typeof WireUsage>;
