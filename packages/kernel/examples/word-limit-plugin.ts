import { definePlugin } from '@troupe/kernel';
import * as z from 'zod';

/** Config of {@link wordLimitPlugin}. */
const WordLimitConfig = z.object({
  maxWords: z.number().int().positive(),
  marker: z.string().default('…'),
});

/**
 * Trims the actor's reply to at most `maxWords` words and records when it did.
 * @param config - `{maxWords, marker?}`; validated at boot
 */
export function wordLimitPlugin(config: z.input<typeof WordLimitConfig>) {
  return definePlugin({
    name: 'example-word-limit',
    version: '1.0.0',
    kernel: '^0.1.0',
    configSchema: WordLimitConfig,
    config,
    setup(ctx) {
      const { maxWords, marker } = ctx.config;
      ctx.hooks.review((reply, turn) => {
        const words = reply.text.split(/\s+/).filter(Boolean);
        if (words.length <= maxWords) return undefined;
        turn.events.append('example/reply-trimmed', { from: words.length, to: maxWords });
        return { text: `${words.slice(0, maxWords).join(' ')}${marker}` };
      });
    },
  });
}
