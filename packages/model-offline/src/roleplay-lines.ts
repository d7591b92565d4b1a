// The offline actor's phrasebook: what a character says back, by what the player did. Lines are
// written to answer the kind of input (a greeting, a who/where/why question, a yes-no question,
// a statement) without repeating the player's words; `{name}` is the played character. Each
// answer's first sentence is short on its own, so the short-sentence form can keep just that.

/** What kind of input the player gave. */
export type InputKind = 'greeting' | 'whoAreYou' | 'who' | 'where' | 'when' | 'why' | 'how' | 'what' | 'yesno' | 'statement';

/** The lines of one language. */
export interface Phrasebook {
  /** Narration openers (in asterisks in the reply). */
  readonly actions: readonly string[];
  /** Narration when the player acted (a stage direction): the character reacts, never repeats it. */
  readonly reactions: readonly string[];
  /** Narration when the character has no name. */
  readonly namelessActions: readonly string[];
  /** Spoken answers by input kind. */
  readonly answers: Readonly<Record<InputKind, readonly string[]>>;
  /** A closing line that invites the player to go on. */
  readonly closers: readonly string[];
}

/** English lines. */
export const ENGLISH_LINES: Phrasebook = {
  actions: ['{name} looks up and meets your eyes.', '{name} pauses, weighing the words.', '{name} leans back, a faint smile tugging at one corner of the mouth.', '{name} sets down what was in hand and turns to you.'],
  reactions: ['{name} watches you for a moment before answering.', '{name} follows the movement with a quiet glance.', '{name} notices, and the look softens.'],
  namelessActions: ['A pause, then a quiet answer.', 'A glance up from the work at hand.', 'A slow breath before the words come.'],
  answers: {
    greeting: ['There you are. Sit, if you like — the night is long.', 'Well met. I wondered when you would come by.', 'Evening. You look like you have walked a long way.'],
    whoAreYou: ['Me? {name}. Most people here know that much; the rest you will have to earn.', 'Call me {name}. What I am is a longer story.'],
    who: ['Someone who would rather stay unnamed. I have my guesses, though.', 'Not anyone you would expect. Give me time, and I will find out.'],
    where: ['Not far from here. Closer than you would think, and farther than I would like.', 'Somewhere I would rather not name out loud. Walls listen.'],
    when: ['Soon. Sooner than either of us is ready for.', 'When the time is right. I will know it, and so will you.'],
    why: ['Because someone had to. And because I could not leave it be.', 'Reasons. Some of them good, most of them mine.'],
    how: ['Carefully. One step, then the next; that is how it is always done.', 'With patience. And a little luck, if we are owed any.'],
    what: ['That is the question, is it not? I have an idea, but I want to hear yours first.', 'Something that matters more than it looks. Give me a moment.'],
    yesno: ['Yes. Though not in the way you are hoping.', 'No. Not yet, at least.', 'Perhaps. Ask me again when the fog lifts.'],
    statement: ['I hear you. Tell me the rest, slowly.', 'Then we had better decide what to do about it.', 'That changes things. More than you know.'],
  },
  closers: ['What will you do now?', 'Go on; I am listening.', 'Stay a while.'],
};

/** Chinese lines. */
export const CHINESE_LINES: Phrasebook = {
  actions: ['{name}抬起头，看向你。', '{name}停顿了一下，像在斟酌措辞。', '{name}轻轻笑了笑，把手里的东西放下。', '{name}转过身来，目光落在你身上。'],
  reactions: ['{name}看着你的动作，过了一会儿才开口。', '{name}的目光跟着你，神色缓和下来。', '{name}注意到了，微微点头。'],
  namelessActions: ['片刻的沉默后，对方开口了。', '对方从手头的事里抬起头来。', '对方慢慢吸了口气。'],
  answers: {
    greeting: ['你来了。坐吧，夜还长。', '总算等到你了。路上还顺利吗？', '晚上好。看你的样子，走了很远的路。'],
    whoAreYou: ['我？{name}。这里的人大多知道这个名字，剩下的，你得自己去了解。', '叫我{name}就好。至于我是什么人，说来话长。'],
    who: ['一个不愿露面的人。不过我心里有数。', '不是你想的那个人。给我点时间，我会查清楚。'],
    where: ['就在附近。比你想的近，也比我希望的远。', '一个我不想大声说出来的地方。隔墙有耳。'],
    when: ['快了。快到我们谁都没准备好。', '时候到了自然会知道。'],
    why: ['因为总得有人去做。而我放不下。', '理由有很多。有些说得出口，有些不行。'],
    how: ['慢慢来。一步，再一步，向来都是这样。', '要有耐心。再加一点运气。'],
    what: ['这正是问题所在，不是吗？我有个想法，但想先听听你的。', '是比看上去更要紧的事。给我一点时间。'],
    yesno: ['是的。不过不是你期待的那种。', '还没有。至少现在还没有。', '也许吧。等雾散了再问我。'],
    statement: ['我听着呢。慢慢说，把剩下的也告诉我。', '那我们得想想接下来怎么办。', '嗯。这比你想的更要紧。'],
  },
  closers: ['你打算怎么做？', '说下去，我在听。', '再坐一会儿吧。'],
};

// Questions first: "Evening, Mira. Who asked you?" is answered as the question, not the greeting.
const ENGLISH_KINDS: readonly [InputKind, RegExp][] = [
  ['whoAreYou', /\bwho (?:are|r) (?:you|u)\b|\bwhat(?:'s| is) your name\b/i],
  ['who', /\bwho\b/i],
  ['where', /\bwhere\b/i],
  ['when', /\bwhen\b/i],
  ['why', /\bwhy\b/i],
  ['how', /\bhow\b/i],
  ['what', /\bwhat\b/i],
  ['greeting', /^(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening|night)|evening|morning)\b/i],
];

const CHINESE_KINDS: readonly [InputKind, RegExp][] = [
  ['why', /为什么|为何|怎么会/u],
  ['whoAreYou', /你是谁|你叫什么|您是哪位|你是哪位/u],
  ['who', /谁/u],
  ['where', /哪里|哪儿|在哪|何处/u],
  ['when', /什么时候|何时|几点/u],
  ['how', /怎么|如何|怎样/u],
  ['what', /什么|啥/u],
  ['greeting', /^(?:你好|您好|嗨|哈喽|晚上好|早上好|早安|晚安)/u],
];

/**
 * What kind of input the player's speech is.
 * @param speech - the player's words without a stage direction
 * @param chinese - whether it is Chinese
 * @param asks - whether it ends as a question
 * @returns the kind
 */
export function inputKind(speech: string, chinese: boolean, asks: boolean): InputKind {
  const kinds = chinese ? CHINESE_KINDS : ENGLISH_KINDS;
  for (const [kind, pattern] of kinds) if (kind !== 'greeting' && pattern.test(speech)) return kind;
  // A yes-no question outranks a greeting too ("Hello, is anyone here?").
  if (asks || (chinese && /[吗嘛呢]\s*[？?]?\s*$/u.test(speech))) return 'yesno';
  for (const [kind, pattern] of kinds) if (kind === 'greeting' && pattern.test(speech)) return kind;
  return 'statement';
}
