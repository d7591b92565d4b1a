import type { ChatMessage } from '@troupe/kernel';

/** Mistral's own API (`api.mistral.ai`), which checks the message list more strictly than OpenAI's. */
const MISTRAL_HOST = /(^|\.)mistral\.ai$/i;

/**
 * Whether a base URL is Mistral's own API (la Plateforme). Mistral models served by Ollama,
 * vLLM or a router take the OpenAI shape as is, so only the host decides.
 * @param baseURL - the configured base URL
 */
export function isMistralApi(baseURL: string): boolean {
  return URL.canParse(baseURL) && MISTRAL_HOST.test(new URL(baseURL).hostname);
}

/**
 * The messages in the shape Mistral's API accepts, as SillyTavern sends them there:
 * - no `name` on any message but a tool result (Mistral answers 422 "Extra inputs are not
 *   permitted"): a named message says its speaker at the start of its text instead (`Lia: …`),
 *   unless it already does;
 * - a system message after the first assistant message becomes a user message, and so does a
 *   system message at the end (Mistral wants the last message to be the user's or a tool's).
 * Nothing else changes: order, roles of the other messages, tool calls.
 * @param messages - the request's messages
 * @returns new messages (the input is not changed)
 */
export function toMistralMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  let answered = false;
  const shaped = messages.map((message): ChatMessage => {
    if (message.role === 'assistant') answered = true;
    const { name, ...rest } = message;
    const named = name === undefined || message.role === 'tool' ? message : { ...rest, content: speakerPrefixed(name, message.content) };
    return named.role === 'system' && answered ? { ...named, role: 'user' } : named;
  });
  const last = shaped[shaped.length - 1];
  if (last?.role === 'system' && shaped.length > 1) shaped[shaped.length - 1] = { ...last, role: 'user' };
  return shaped;
}

// SillyTavern's example messages are named `example_user` / `example_assistant`: those names are
// labels, not speakers, so they are dropped rather than written into the text.
function speakerPrefixed(name: string, content: string): string {
  if (name === 'example_user' || name === 'example_assistant') return content;
  return content.startsWith(`${name}: `) ? content : `${name}: ${content}`;
}
