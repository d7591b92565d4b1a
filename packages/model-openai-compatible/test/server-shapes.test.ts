import type { ChatMessage } from '@troupe/kernel';
import { describe, expect, it } from 'vitest';
import { resolveOpenAICompatibleConfig } from '../src/index.js';
import { toWireBody } from '../src/to-wire.js';
import { chatRequest } from './loopback-server.js';

const bodyFor = (baseURL: string, model: string, request: Parameters<typeof chatRequest>[0]) =>
  toWireBody(chatRequest(request), resolveOpenAICompatibleConfig({ baseURL, model }, {}), { stream: true, streamUsage: false }, `openai-compatible:${model}`);

// What a SillyTavern-style prompt sends: examples named example_user / example_assistant, a
// speaker name, and the post-history instructions as a system message after the player's line.
const roleplay: ChatMessage[] = [
  { role: 'system', content: 'You are Lia.' },
  { role: 'system', content: 'Is the light on?', name: 'example_user' },
  { role: 'system', content: 'Always.', name: 'example_assistant' },
  { role: 'assistant', content: 'Welcome.', name: 'Lia' },
  { role: 'user', content: 'Hello.', name: 'Ash' },
  { role: 'system', content: 'Stay in character.' },
];

describe("the request body each server's API accepts", () => {
  it("Mistral's API: no names (the speaker goes into the text), a system message after the chat starts or at the end becomes a user message", () => {
    const body = bodyFor('https://api.mistral.ai/v1', 'mistral-large-latest', { messages: roleplay });
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are Lia.' },
      { role: 'system', content: 'Is the light on?' },
      { role: 'system', content: 'Always.' },
      { role: 'assistant', content: 'Lia: Welcome.' },
      { role: 'user', content: 'Ash: Hello.' },
      { role: 'user', content: 'Stay in character.' },
    ]);
  });

  it('a Mistral model on another server (Ollama, vLLM) gets the OpenAI shape as is', () => {
    const body = bodyFor('http://127.0.0.1:11434/v1', 'mistral-nemo', { messages: roleplay });
    expect((body.messages as { name?: string }[]).map((message) => message.name)).toEqual([undefined, 'example_user', 'example_assistant', 'Lia', 'Ash', undefined]);
  });

  it("OpenAI's reasoning models (o-series, gpt-5): max_completion_tokens instead of max_tokens, and no sampling fields they refuse", () => {
    for (const model of ['o4-mini', 'o3', 'o1-preview', 'gpt-5', 'gpt-5-mini', 'openai/o3-mini']) {
      const body = bodyFor('https://api.openai.com/v1', model, { maxOutputTokens: 300, temperature: 0.7, topP: 0.9, frequencyPenalty: 0.3, presencePenalty: 0.2 });
      expect(body).toMatchObject({ max_completion_tokens: 300 });
      for (const field of ['max_tokens', 'temperature', 'top_p', 'frequency_penalty', 'presence_penalty']) expect(body).not.toHaveProperty(field);
    }
    const chat = bodyFor('https://api.openai.com/v1', 'gpt-4o', { maxOutputTokens: 300, temperature: 0.7, topP: 0.9 });
    expect(chat).toMatchObject({ max_tokens: 300, temperature: 0.7, top_p: 0.9 });
  });
});
