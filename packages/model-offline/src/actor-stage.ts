import type { ChatRequest } from '@troupe/kernel';
import { readMessageFacts } from './message-facts.js';
import { toShortSentences } from './short-sentences.js';
import { firstSentence, snippet, stripEndPunctuation } from './text.js';

/**
 * The actor's reply. When the story draft came as a `<story_draft>` block, the reply delivers it:
 * the same content and format, rewritten into short sentences when a system message asks for them
 * (the seed: the actor only adapts voice and format). Otherwise an in-character reply that names
 * the character from the system prompt, quotes the player's last input, follows a short-sentence
 * requirement and leans on a labelled story draft. Chinese input gets a Chinese reply. Instruction
 * text is never quoted.
 * @param request - the actor request (prepared history)
 * @returns the reply text
 */
export function actorReply(request: ChatRequest): string {
  const facts = readMessageFacts(request);
  const short = facts.wantsShortSentences;
  if (facts.draftTagged && facts.storyDraft) {
    return short ? toShortSentences(facts.storyDraft, facts.lastUserText) : facts.storyDraft;
  }
  const draftLine = facts.storyDraft ? stripEndPunctuation(firstSentence(stripDraftLabel(facts.storyDraft))) : '';
  if (facts.chinese) {
    const name = facts.characterName ?? '我';
    const input = stripEndPunctuation(snippet(facts.lastUserText, short ? 12 : 40));
    if (short) {
      const parts = [`${name}点头。`, '“我听见了。', `你说：${input}。`];
      if (draftLine) parts.push(`${snippet(draftLine, 12)}。`);
      parts.push('说下去。”');
      return parts.join('');
    }
    const middle = draftLine ? `${draftLine}。` : '让我想一想该怎么回答你。';
    return `${name}看着你，轻声说：“你说「${input}」。${middle}我是${name}，我在听。”`;
  }
  const name = facts.characterName;
  const input = short ? firstWords(facts.lastUserText, 6) : stripEndPunctuation(snippet(facts.lastUserText, 80));
  if (short) {
    const parts = [`${name ?? 'I'} ${name ? 'nods' : 'nod'}.`, '"I heard you.', `You said: ${input}.`];
    if (draftLine) parts.push(`${snippet(draftLine, 40)}.`);
    parts.push('Go on."');
    return parts.join(' ');
  }
  const middle = draftLine ? `${draftLine}.` : 'Let me think about how to answer you.';
  const intro = name ? `${name} looks at you and says quietly:` : 'I look at you and say quietly:';
  return `${intro} "You said: ${input}. ${middle} ${name ? `I am ${name}, and` : 'And'} I am listening."`;
}

/** The first `count` words, with an ellipsis when more followed (short sentences stay short). */
function firstWords(text: string, count: number): string {
  const words = stripEndPunctuation(text.trim()).split(/\s+/).filter((word) => word !== '');
  return words.length > count ? `${words.slice(0, count).join(' ')}…` : words.join(' ');
}

function stripDraftLabel(draft: string): string {
  // Drafts often start with a label line ("Story draft:"); the reply should quote the story itself.
  return draft.replace(/^\s*(?:story draft|故事草稿|草稿)\s*[:：]?\s*$/im, '');
}
