import type { ChatRequest, ChatResponse } from '@troupe/kernel';
import { STORY_STAGES } from '@troupe/kernel/stage-prompt';
import { actorReply } from './actor-stage.js';
import { directorResponse } from './director-stage.js';
import { generateFromSchema } from './json-schema-generator.js';
import { readMessageFacts } from './message-facts.js';
import { editorProse, sectionProse } from './prose-stages.js';
import { storyHint } from './story-json-stages.js';
import { snippet } from './text.js';

/**
 * Answers one request without usage figures: routes on `meta.stage` and on `json`.
 * Structured output wins over the stage name, so any stage that asks for a JSON Schema gets
 * schema-conforming JSON.
 * @param request - the chat request
 * @returns text and tool calls (usage is added by the model)
 */
export function answer(request: ChatRequest): Omit<ChatResponse, 'usage'> {
  const stage = request.meta.stage;
  if (stage === 'director') return directorResponse(request);
  if (request.json) return { text: jsonAnswer(request, request.json), finishReason: 'stop' };
  switch (stage) {
    case 'actor':
      return { text: actorReply(request), finishReason: 'stop' };
    case STORY_STAGES.section:
      return { text: sectionProse(request), finishReason: 'stop' };
    case STORY_STAGES.editor:
      return { text: editorProse(request), finishReason: 'stop' };
    case 'dio/compile':
      // The DIO service sends the merged prompt as the last user message; echoing it is the
      // honest "compilation" an offline model can do.
      return { text: lastUser(request), finishReason: 'stop' };
    default:
      return { text: unknownStageText(request), finishReason: 'stop' };
  }
}

function jsonAnswer(request: ChatRequest, json: NonNullable<ChatRequest['json']>): string {
  const facts = readMessageFacts(request);
  const schema = typeof json === 'object' ? json.schema : undefined;
  if (schema) return JSON.stringify(generateFromSchema(schema, { facts, stage: request.meta.stage, hint: storyHint(request) }));
  return JSON.stringify({ stage: request.meta.stage, text: snippet(facts.lastUserText, 80) });
}

function unknownStageText(request: ChatRequest): string {
  const facts = readMessageFacts(request);
  const echo = snippet(facts.lastUserText, 60);
  return facts.chinese
    ? `（离线模拟：${request.meta.stage}）${echo}`
    : `(offline simulation: ${request.meta.stage}) ${echo}`.trimEnd();
}

function lastUser(request: ChatRequest): string {
  for (let index = request.messages.length - 1; index >= 0; index--) {
    const message = request.messages[index];
    if (message?.role === 'user') return message.content;
  }
  return '';
}
