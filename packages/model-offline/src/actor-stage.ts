import type { ChatRequest } from '@troupe/kernel';
import { readMessageFacts } from './message-facts.js';
import { splitPlayerInput } from './player-input.js';
import { roleplayReply } from './roleplay-reply.js';
import { characterAliases, shortSentencesAskedOf } from './short-sentence-target.js';
import { toShortSentences } from './short-sentences.js';
import { firstSentence, stripEndPunctuation } from './text.js';

/**
 * The actor's reply. When the story draft came as a `<story_draft>` block, the reply delivers it:
 * the same content and format, rewritten into short sentences when a system message asks this
 * character for them (the seed: the actor only adapts voice and format). Otherwise an
 * in-character roleplay reply (see `roleplayReply`): narration reacting to the player, then the
 * character's answer to what was said, never echoing the player's words or speaking their stage
 * direction as dialogue; a short-sentence requirement applies only when it names the played
 * character (or nobody). Chinese input gets a Chinese reply. Instruction text is never quoted.
 * @param request - the actor request (prepared history)
 * @returns the reply text
 */
export function actorReply(request: ChatRequest): string {
  const facts = readMessageFacts(request);
  const names = characterAliases(request.messages, facts.characterName);
  const short = facts.wantsShortSentences && shortSentencesAskedOf(request.messages, names);
  if (facts.draftTagged && facts.storyDraft) {
    // Only the played character's lines get short: Marco's and Old Ren's stay as the draft has them.
    return short ? toShortSentences(facts.storyDraft, facts.lastUserText, names) : facts.storyDraft;
  }
  const draftLine = facts.storyDraft ? stripEndPunctuation(firstSentence(stripDraftLabel(facts.storyDraft))) : '';
  return roleplayReply({
    name: facts.characterName,
    input: splitPlayerInput(facts.lastUserText),
    short,
    draftLine,
    turn: request.messages.length,
  });
}

function stripDraftLabel(draft: string): string {
  // Drafts often start with a label line ("Story draft:"); the reply should quote the story itself.
  return draft.replace(/^\s*(?:story draft|故事草稿|草稿)\s*[:：]?\s*$/im, '');
}
