import { contextKeys, definePlugin, type PluginDefinition, type TurnContext } from '@troupe/kernel';
import type { ActorPromptData } from '../wire/prompt.js';
import { itemizePrompt } from './prompt-blocks.js';

/** The session event holding a step's itemized actor prompt ({@link ActorPromptData}; ignorable: the chat never needs it). */
export const ACTOR_PROMPT_EVENT = 'demo/actor-prompt';

/**
 * Records the actor's prompt of every step as SillyTavern's "prompt itemization": after every
 * other `actorAssemble` handler (it must be the last plugin listed), each message of the prompt
 * with its source and token count, counted by the turn's own budget (`contextKeys.tokenBudget`:
 * the model's tokenizer or the kernel's estimate, calibrated). The event is queued with the turn,
 * so it is committed with the step it describes and never for a turn that failed; later settings
 * changes cannot alter what a past step was sent.
 * @returns the plugin
 */
export function promptItemizationPlugin(): PluginDefinition {
  return definePlugin({
    name: '@troupe/demo/prompt-itemization',
    version: '0.1.0',
    setup(ctx) {
      ctx.hooks.actorAssemble({
        order: 'post',
        // Bookkeeping: a failure here must never cost the player the turn.
        degradable: true,
        handler: (prepared, turn) => {
          turn.events.append(ACTOR_PROMPT_EVENT, actorPromptData(prepared.history, turn), { ignorable: true });
          return prepared;
        },
      });
    },
  });
}

function actorPromptData(messages: Parameters<typeof itemizePrompt>[0], turn: TurnContext): ActorPromptData {
  const budget = turn.get(contextKeys.tokenBudget);
  const count = budget ? budget.countMessage : (message: { content: string }) => message.content.length;
  const worldInfo = turn.get(contextKeys.worldInfo)?.entries.map((entry) => entry.content);
  const dioCompiledPrompt = turn.get(contextKeys.dioCompiledPrompt);
  const storyDraft = turn.get(contextKeys.storyDraft)?.text;
  const continued = turn.get(contextKeys.continuation)?.reply;
  const blocks = itemizePrompt(
    messages,
    {
      input: turn.input,
      history: turn.history,
      ...(continued !== undefined ? { continued } : {}),
      ...(worldInfo !== undefined ? { worldInfo } : {}),
      ...(dioCompiledPrompt !== undefined ? { dioCompiledPrompt } : {}),
      ...(storyDraft !== undefined ? { storyDraft } : {}),
    },
    count,
  );
  return {
    blocks,
    totalTokens: budget ? budget.countMessages(messages) : blocks.reduce((sum, block) => sum + block.tokens, 0),
    contextTokens: budget?.contextTokens ?? 0,
    responseTokens: budget?.responseTokens ?? 0,
    promptTokens: budget?.promptTokens ?? 0,
    tokenizer: budget ? { id: budget.tokenizer.id, exact: budget.tokenizer.exact } : { id: 'characters', exact: false },
    calibration: budget?.calibration ?? 1,
  };
}
