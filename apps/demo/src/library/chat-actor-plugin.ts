import { definePlugin, type PluginDefinition } from '@troupe/kernel';
import { type ActorProfile, actorProfileKey } from '@troupe/plugin-actor-assembler';

/** Finds the actor profile of a session, or `undefined` for a session that is not a library chat. */
export type ActorProfileLookup = (sessionId: string, signal: AbortSignal) => Promise<ActorProfile | undefined>;

/**
 * The demo's bridge from its chat library to the actor assembler: before anything else runs on a
 * turn, the chat's character, preset and persona become the turn's {@link actorProfileKey}. A
 * chat whose character was deleted fails the turn (it never silently plays someone else).
 * @param lookup - reads the chat behind a session
 * @returns the plugin
 */
export function chatActorPlugin(lookup: ActorProfileLookup): PluginDefinition {
  return definePlugin({
    name: '@troupe/demo/chat-actor',
    version: '0.1.0',
    setup(ctx) {
      ctx.hooks.preActor({
        order: 'pre',
        degradable: false,
        handler: async (_input, turn) => {
          const profile = await lookup(turn.sessionId, turn.signal);
          if (profile) turn.set(actorProfileKey, profile);
        },
      });
    },
  });
}
