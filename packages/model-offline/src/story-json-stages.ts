import type { ChatRequest } from '@troupe/kernel';
import { STORY_STAGES } from '@troupe/kernel/stage-prompt';
import { statesLastingRequirement } from './director-stage.js';
import { hashText } from './hash.js';
import { type PlayerInput, readPlayerInput } from './player-input.js';
import { plainLines, readBlocks, stageBlock, titleOf } from './prompt-blocks.js';
import { participantsIn, playedCharacter, proposalsIn, sectionsIn } from './story-cast.js';
import { firstClause, outsideQuotes, withEndStop } from './story-text.js';
import { isCjk, overlapScore, snippet, splitSentences, spokenLength, stripEndPunctuation } from './text.js';

/**
 * Preferred content for the story pipeline's structured stages, shaped like the plugin's schemas
 * (`story/research`, `story/character`, `story/director`, `story/continuity`). The JSON Schema
 * generator uses what fits the requested schema and generates the rest, so an unknown schema still
 * gets conforming JSON. Each hint is built only from the blocks of its own request.
 * @param request - the structured request
 * @returns the hint, or undefined for stages without one
 */
export function storyHint(request: ChatRequest): unknown {
  switch (request.meta.stage) {
    case STORY_STAGES.research:
      return researchHint(request);
    case STORY_STAGES.character:
      return characterHint(request);
    case STORY_STAGES.director:
      return directorHint(request);
    case STORY_STAGES.continuity:
      return continuityHint(request);
    default:
      return undefined;
  }
}

const SECRET = /^(?:秘密|私下|secret|private)\s*[:：]/iu;

function characterHint(request: ChatRequest) {
  const blocks = readBlocks(request.messages);
  const input = readPlayerInput(request.messages);
  const zh = input.chinese;
  const member = playedCharacter(request.messages, blocks);
  const name = member?.name ?? (zh ? '这个角色' : 'The character');
  const persona = stageBlock(blocks, 'persona');
  const alias = /[（(]([^）)]+)[）)]/u.exec(titleOf(persona) ?? '')?.[1];
  // Quoted lines are settled observations of earlier replies, not things to recite.
  const known = plainLines(stageBlock(blocks, 'knowledge')).filter((line) => !/[“”「」"]/u.test(line));
  const secret = known.some((line) => SECRET.test(line));
  const relevant = mostRelevant(
    known.filter((line) => !SECRET.test(line)),
    input.text,
  );
  const addressed = input.text.includes(name) || (alias !== undefined && input.text.includes(alias));
  const verbs = zh ? ['转过身来', '放下手里的活', '往前走了一步', '抬起头', '眯起眼睛'] : ['turns around', 'puts down their work', 'steps closer', 'looks up', 'narrows their eyes'];
  const verb = verbs[hashText(name) % verbs.length]!;
  const topic = input.topic;
  const action = zh ? `${name}${verb}${topic ? `，留意到玩家问起“${topic}”` : ''}` : `${name} ${verb}${topic ? `, taking in the player's words: "${topic}"` : ''}`;
  let dialogue: string;
  if (statesLastingRequirement(input.text)) dialogue = addressed ? (zh ? '好，我记住了。' : 'All right, I will remember that.') : '';
  else if (relevant) dialogue = withEndStop(relevant, zh);
  else {
    const lines = secret
      ? zh
        ? ['这种事，问我可没用。', '雾大的夜里，少打听为好。']
        : ["Don't ask me about that.", 'On foggy nights it is better not to ask.']
      : zh
        ? ['这雾里的事，谁也说不准。', '你不是本地人吧？', '先别急，慢慢说。']
        : ['Nobody can say for sure in this fog.', "You're not from around here, are you?", 'Slow down, tell me more.'];
    dialogue = lines[hashText(`${name}/${input.text}`) % lines.length]!;
  }
  const intent = secret
    ? zh
      ? `${name}想守住自己的秘密，先弄清玩家的来意`
      : `${name} wants to keep a secret and learn why the player is here`
    : relevant
      ? zh
        ? `${name}想把自己知道的事告诉玩家`
        : `${name} wants to tell the player what they know`
      : zh
        ? `${name}想看看玩家接下来要做什么`
        : `${name} wants to see what the player does next`;
  return { intent, action, dialogue };
}

function researchHint(request: ChatRequest) {
  const blocks = readBlocks(request.messages);
  const input = readPlayerInput(request.messages);
  const zh = input.chinese;
  const facts = rankedFacts(snippetSentences(stageBlock(blocks, 'referenceSnippets')), input, 3);
  const history = plainLines(stageBlock(blocks, 'publicHistory'));
  const last = history[history.length - 1];
  const opening = last ? (zh ? `接着此前的事：${withEndStop(snippet(last, 60), zh)}` : `After: ${withEndStop(snippet(last, 100), zh)}`) : zh ? '故事刚刚开始。' : 'The story has just begun.';
  const topic = input.topic ? (zh ? `玩家这一回${input.asks ? '问起' : '说到'}“${input.topic}”。` : ` This time the player ${input.asks ? 'asks about' : 'mentions'} "${input.topic}".`) : '';
  return { facts, continuity: `${opening}${topic}`.trim() };
}

function directorHint(request: ChatRequest) {
  const blocks = readBlocks(request.messages);
  const input = readPlayerInput(request.messages);
  const zh = input.chinese;
  const briefLines = (stageBlock(blocks, 'researchBrief') ?? '').split('\n');
  const facts = briefLines.filter((line) => /^\s*-\s+\S/.test(line)).map((line) => line.replace(/^\s*-\s+/, '').trim());
  const proposals = proposalsIn(stageBlock(blocks, 'characterProposals'));
  const beats: string[] = [];
  const fact = rankedFacts(facts, input, 1)[0];
  if (fact) beats.push(zh ? `背景：${fact}` : `Background: ${fact}`);
  for (const proposal of proposals.slice(0, 4)) {
    const clause = firstClause(proposal.action);
    const act = clause.startsWith(proposal.name) ? clause.slice(proposal.name.length).trim() : clause;
    const says = proposal.dialogue ? (zh ? `；说：“${proposal.dialogue}”` : `; says "${proposal.dialogue}"`) : '';
    beats.push(zh ? `${proposal.name}：${act}${says}` : `${proposal.name}: ${act}${says}`);
  }
  if (beats.length === 0) beats.push(zh ? `回应玩家：${snippet(input.text, 80)}` : `Respond to the player: ${snippet(input.text, 120)}`);
  const names = proposals.map((p) => p.name);
  const sectionNotes = sectionsIn(stageBlock(blocks, 'sections')).map((section) => ({
    sectionId: section.id,
    note: sectionNote(section.kind, section.focus ? [section.focus] : names, input),
  }));
  return { beats, sectionNotes };
}

function sectionNote(kind: string, names: readonly string[], input: PlayerInput): string {
  const zh = input.chinese;
  if (kind === 'character') {
    return zh ? `写${names.join('、') || '在场的人'}各自的反应与对白` : `Write how ${names.join(', ') || 'everyone present'} react and what they say`;
  }
  if (kind === 'history') return zh ? '回顾已经公开的事' : 'Recap what is already public';
  return zh ? `写出此刻的情景，回应玩家的“${input.topic}”` : `Set the scene and answer the player's "${input.topic}"`;
}

function continuityHint(request: ChatRequest) {
  const blocks = readBlocks(request.messages);
  const reply = plainLines(stageBlock(blocks, 'visibleReply')).join('\n');
  const zh = isCjk(reply);
  const sentences = splitSentences(reply).map((sentence) => (zh ? outsideQuotes(sentence, (text) => text.replace(/你/gu, '玩家')) : sentence));
  // The event is what the player did or saw happen: the first sentence about the player, joined
  // with the next when it is very short.
  const player = zh ? '玩家' : /\byou\b/i;
  const at = Math.max(0, sentences.findIndex((sentence) => (typeof player === 'string' ? sentence.includes(player) : player.test(sentence))));
  let event = sentences[at] ?? '';
  if (event && spokenLength(event) < 8 && sentences[at + 1]) event = `${event}${zh ? '' : ' '}${sentences[at + 1]}`;
  const participants = participantsIn(stageBlock(blocks, 'participants'));
  const observations = participants
    .map((member) => ({
      member,
      // Prefer the sentence where the character acts (starts with the name) over a passing mention.
      seen: sentences.find((sentence) => actsIn(sentence, member.name)) ?? sentences.find((sentence) => sentence.includes(member.name)),
    }))
    .filter((entry): entry is { member: (typeof participants)[number]; seen: string } => entry.seen !== undefined)
    .map(({ member, seen }) => ({ characterId: member.id, facts: [snippet(seen, 120)] }));
  // Only foreshadowing is a thread to bring up later; the outline is already the plan.
  const thread = mostRelevant(plainLines(stageBlock(blocks, 'foreshadowing')), reply);
  const proposals = thread ? [zh ? `可以在后面几回让这条线索慢慢浮现：${stripEndPunctuation(thread)}。` : `Let this thread surface over the next turns: ${stripEndPunctuation(thread)}.`] : [];
  return { publicEvents: event ? [snippet(event, 120)] : [], observations, proposals };
}

/** True when `sentence` starts with `name` as its subject (not as the first item of a list). */
function actsIn(sentence: string, name: string): boolean {
  return sentence.startsWith(name) && !/^[、,，和]|^ and\b/u.test(sentence.slice(name.length));
}

function snippetSentences(body: string | undefined): string[] {
  // "[1] (local: guide#0) text…" lines; continuation lines belong to the snippet above them.
  const text = (body ?? '').replace(/^\[\d+\]\s*\([^)]*\)\s*/gmu, '');
  return plainLines(text).flatMap((line) => splitSentences(line));
}

/** The `limit` facts that share the most with the input, in their original order; same language only. */
function rankedFacts(facts: readonly string[], input: PlayerInput, limit: number): string[] {
  const sameLanguage = facts.filter((fact) => isCjk(fact) === input.chinese);
  const scored = sameLanguage.map((fact, index) => ({ fact, index, score: overlapScore(fact, input.text) }));
  const chosen = scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit);
  if (chosen.length === 0) return sameLanguage.slice(0, Math.min(1, limit));
  return chosen.sort((a, b) => a.index - b.index).map((entry) => entry.fact);
}

function mostRelevant(lines: readonly string[], text: string): string | undefined {
  let best: string | undefined;
  let bestScore = 0;
  for (const line of lines) {
    const score = overlapScore(line, text);
    if (score > bestScore) {
      best = line;
      bestScore = score;
    }
  }
  return best;
}
