import { contextKeys, definePlugin, type PluginDefinition } from '@troupe/kernel';

/**
 * A stand-in for the actor assembler: in `actorAssemble` it reads the DIO compiled prompt from
 * the turn context, records it, and (like the assembler's `roleplay` slot) puts it first in the
 * actor's messages.
 */
export function probePlugin(seen: Array<string | undefined>): PluginDefinition {
  return definePlugin({
    name: 'test/dio-probe',
    version: '0.0.0',
    setup(ctx) {
      ctx.hooks.actorAssemble((prepared, turn) => {
        const compiled = turn.get(contextKeys.dioCompiledPrompt);
        seen.push(compiled);
        return compiled === undefined ? prepared : { history: [{ role: 'system', content: compiled }, ...prepared.history] };
      });
    },
  });
}
