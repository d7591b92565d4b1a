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

// A lasting marker alone is not a requirement (the seed: only an explicit request for a lasting
// change). The same sentence must also tell the character how to speak or act: a verb of speaking,
// addressing or behaving, or an imperative.
const CHINESE_DIRECTIVE =
  /说话|回答|回复|答复|讲话|用|叫我|叫他|叫她|称呼|提(?:到|起)?|加(?:上|一)|保持|别|不要|不许|不准|不能|少(?:说|讲|写)|多(?:说|讲|写)|语气|口吻|风格|句|写|扮演|表现|记得|记住|称|停止|改掉|温柔|礼貌|简短|简洁|请/u;
const ENGLISH_DIRECTIVE =
  /\b(?:please|you|your|don'?t|never|always|stop|speak|talk|answer|reply|respond|use|write|keep|stay|call|end|start|avoid|say|refer|address|act|sound|remember to|be (?:more|less|polite|kind|nice|brief|short|concise|gentle|formal|casual))\b/i;
// Putting a topic off ("我们以后再聊…", "以后再说") is a plan, not a requirement ("以后再也不要…" is one).
const CHINESE_POSTPONING = /以后再(?!也)|改天再?|回头再|下次再/u;
// A story told about others ("从此以后他们…") is narration unless it also addresses the character.
const CHINESE_NARRATION = /他们|她们|他|她|它们/u;
const CHINESE_ADDRESSED = /你|您|请|别|不要|不许|不准/u;

// Sentences with their end mark: a lasting marker and its directive must stand in one of them.
function sentences(text: string): string[] {
  return text.match(/[^。！!？?；;\n]+[。！!？?；;]*/gu) ?? [];
}

function isQuestion(sentence: string): boolean {
  return /[？?]\s*$/u.test(sentence);
}

function chineseRequirement(sentence: string): boolean {
  if (!CHINESE_LASTING.some((pattern) => pattern.test(sentence)) || !CHINESE_DIRECTIVE.test(sentence)) return false;
  if (CHINESE_POSTPONING.test(sentence)) return false;
  return !CHINESE_NARRATION.test(sentence) || CHINESE_ADDRESSED.test(sentence);
}

function englishRequirement(sentence: string): boolean {
  return ENGLISH_LASTING.some((pattern) => pattern.test(sentence)) && ENGLISH_DIRECTIVE.test(sentence);
}

/**
 * True when `text` explicitly asks for a change meant to hold for later turns: a sentence with a
 * lasting marker ("从现在起…", "from now on…", "always…", "stop …-ing") that also tells the
 * character how to speak or act, and is not a question. A question ("你以后会离开灯塔吗？"), a
 * plan ("我们以后再聊"), or a story ("从此以后他们再也没见过面") is a one-off message.
 * @param text - the player's latest message
 */
export function statesLastingRequirement(text: string): boolean {
  return sentences(text).some((sentence) => !isQuestion(sentence) && (chineseRequirement(sentence) || englishRequirement(sentence)));
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
