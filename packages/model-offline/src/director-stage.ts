import type { ChatRequest, ChatResponse } from '@troupe/kernel';
import { hashText } from './hash.js';
import { readMessageFacts } from './message-facts.js';

/** The tool the pre-actor director calls to record a lasting requirement. */
export const SCHEDULE_DIO_TOOL = 'schedule_dio';

// Chinese phrasings of a lasting requirement. "以后" only counts at the start of a clause or
// after a person ("你以后…"), so "吃完饭以后我们去散步" is not mistaken for one.
const CHINESE_LASTING: readonly RegExp[] = [
  /从现在(?:起|开始)|从今(?:天|以后|往后)(?:起|开始)?|从此(?:以后)?|今后/u,
  /(?:^|[，,。！!？?；;：:\s]|请|你|您|咱们|我们)以后/u,
  /往后(?:都|请|你|说话|回答)/u,
  /每次(?:回答|回复|说话|都要|都请|你)|每一次(?:回答|回复|说话)|每句话?都/u,
  /(?:请|要)一直|一直都要|永远(?:不要|别|都要|要)|始终(?:要|保持|用)|总是要/u,
  /别再|不要再|不许再|再也不要|不准再/u,
];

// English phrasings. "always" and "every time" need an imperative or a modal so that
// "I always liked rain" stays a plain message.
const ENGLISH_LASTING: readonly RegExp[] = [
  /\bfrom now on\b|\bfrom here on\b|\bgoing forward\b|\bhenceforth\b|\bfrom (?:this point|today) on\b/i,
  /\bfor the rest of (?:the|our|this) (?:conversation|chat|story|game|session)\b/i,
  /(?:^|[.!?]\s+|\bplease\s+)always\b/i,
  /\byou (?:must|should|will|'ll|need to|have to) always\b/i,
  /\balways (?:speak|talk|answer|reply|respond|use|write|call|say|keep|end|start|include|address|refer)\b/i,
  /\b(?:every|each) time you\b|\bin (?:every|each) (?:reply|response|answer|message)\b/i,
  /(?<!\bdon'?t )\bstop \w+ing\b/i,
  /\bnever again\b|\bdon'?t ever\b|\bnever (?:speak|talk|answer|reply|call|say|use|mention)\b/i,
  /\bin (?:the )?future,? (?:please|you|always|don'?t|never|call|speak|talk)\b/i,
];

/**
 * True when `text` states a requirement meant to hold for later turns ("从现在起…", "from now
 * on…", "always…", "stop …-ing"), as opposed to a one-off message.
 * @param text - the player's latest message
 */
export function statesLastingRequirement(text: string): boolean {
  return CHINESE_LASTING.some((pattern) => pattern.test(text)) || ENGLISH_LASTING.some((pattern) => pattern.test(text));
}

/**
 * The control model's answer: a `schedule_dio` call when the tool is offered, no tool result has
 * come back yet and the last user message states a lasting requirement; otherwise the text `none`.
 * @param request - the director's request
 * @returns the simulated response
 */
export function directorResponse(request: ChatRequest): ChatResponse {
  const facts = readMessageFacts(request);
  const offered = request.tools?.some((tool) => tool.name === SCHEDULE_DIO_TOOL) ?? false;
  if (!offered || facts.answeredByTool || !statesLastingRequirement(facts.lastUserText)) {
    return { text: 'none', finishReason: 'stop' };
  }
  const id = `call_offline_${hashText(facts.lastUserText).toString(16).padStart(8, '0')}`;
  return { text: '', toolCalls: [{ id, name: SCHEDULE_DIO_TOOL, arguments: {} }], finishReason: 'tool-calls' };
}
