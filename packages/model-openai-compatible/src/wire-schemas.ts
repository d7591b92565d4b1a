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
  choices: z.array(
    z.looseObject({
      index: z.number().optional(),
      delta: z
        .looseObject({
          content: z.string().nullish(),
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
  ),
  usage: WireUsage.nullish(),
});

/** A parsed streamed chunk. */
export type WireChunk = z.infer<typeof ChunkSchema>;
/** A parsed completion. */
export type WireCompletion = z.infer<typeof CompletionSchema>;
/** Usage as the server reports it. */
export type WireUsageValue = z.infer<typeof WireUsage>;
