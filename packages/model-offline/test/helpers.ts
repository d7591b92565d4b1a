import type { ChatMessage, ChatRequest, ToolSpec } from '@troupe/kernel';

/** The schedule_dio tool as the DIO plugin offers it (an empty-object schema). */
export const scheduleDioTool: ToolSpec = {
  name: 'schedule_dio',
  description: 'Record a lasting requirement stated by the player.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
};

/** Builds a request for `stage` with a fresh, never-aborted signal. */
export function request(stage: string, messages: ChatMessage[], extra: Partial<ChatRequest> = {}): ChatRequest {
  return { messages, signal: new AbortController().signal, meta: { stage, sessionId: 's1', turnId: 't1' }, ...extra };
}
