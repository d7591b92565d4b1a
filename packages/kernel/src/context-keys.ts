/**
 * A typed slot in the turn context. Plugins share data only through keys the kernel defines
 * (so they never import each other); a plugin may define private keys for itself.
 */
export interface ContextKey<T> {
  /** Globally unique identity (`Symbol.for`), so duplicated package copies agree. */
  readonly id: symbol;
  /** Human-readable name used in error messages. */
  readonly name: string;
  /** Phantom field carrying the value type; never set at run time. */
  readonly __type?: T;
}

/**
 * Creates a typed context key.
 * @param name - unique name, namespaced like `@troupe/plugin-story/draft`
 * @returns a key whose identity is `Symbol.for(name)`
 */
export function defineContextKey<T>(name: string): ContextKey<T> {
  return Object.freeze({ id: Symbol.for(name), name });
}

/** The edited story draft that the story plugin hands to the actor assembler. */
export interface StoryDraft {
  /** Markdown text of the draft (sections under their own `##` headings). */
  readonly text: string;
  /** The workspace the draft was prepared from. */
  readonly workspaceId: string;
  /** The workspace revision the draft was prepared from. */
  readonly revision: number;
}

/**
 * Context keys shared between plugins. Writers and readers:
 * - `dioCompiledPrompt`: set by `@troupe/plugin-dio` (a verified complete character prompt),
 *   read by `@troupe/plugin-actor-assembler` (the DIO slot rules).
 * - `storyDraft`: set by `@troupe/plugin-story`, placed by the actor assembler.
 * - `templateVariables`: variables any plugin contributes to prompt macros (`{{getvar::name}}`).
 */
export const contextKeys = Object.freeze({
  dioCompiledPrompt: defineContextKey<string>('@troupe/kernel/context/dioCompiledPrompt'),
  storyDraft: defineContextKey<StoryDraft>('@troupe/kernel/context/storyDraft'),
  templateVariables: defineContextKey<Readonly<Record<string, string>>>('@troupe/kernel/context/templateVariables'),
});
