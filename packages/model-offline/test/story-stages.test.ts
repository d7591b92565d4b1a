import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { offlineModel } from '../src/index.js';
import { request } from './helpers.js';
import {
  CharacterProposalSchema,
  ContinuityResultSchema,
  characterMessages,
  continuityMessages,
  DirectorPlanSchema,
  directorMessages,
  ResearchBriefSchema,
  researchMessages,
  SCAFFOLDING,
  sectionMessages,
} from './story-fixtures.js';

const model = offlineModel();

async function json<T>(stage: string, messages: Parameters<typeof request>[1], schema: z.ZodType<T>): Promise<T> {
  const response = await model.generate(request(stage, messages, { json: { schema: z.toJSONSchema(schema), name: 'out' } }));
  return schema.parse(JSON.parse(response.text));
}

function expectClean(text: string): void {
  for (const label of SCAFFOLDING) expect(text, `"${label}" in: ${text}`).not.toContain(label);
}

const LIA = { persona: '# Lia（莉娅）\n\n灯塔守护者，说话温和。', knowledge: '# Lia 知道的事\n\n- 灯塔的灯油只够再烧三夜。\n- 午夜的钟声已经连续响了五天。' };
const MARCO = { persona: '# Marco（马可）\n\n走私商人，圆滑。', knowledge: '# Marco 知道的事\n\n- 秘密：钟楼的钥匙在 Marco 身上。\n- 他的买家只在起雾的夜里靠岸。' };

describe('story/character', () => {
  it('proposes an action naming the character and the player input, speaking a relevant fact it knows', async () => {
    const input = '灯塔的灯为什么今晚这么暗？';
    const value = await json('story/character', characterMessages('Lia', 'lia', LIA.persona, LIA.knowledge, input), CharacterProposalSchema);
    expect(value.action).toContain('Lia');
    expect(value.action).toContain('灯塔的灯为什么今晚这么暗');
    expect(value.dialogue).toBe('灯塔的灯油只够再烧三夜。');
    for (const field of Object.values(value)) expectClean(field);
  });

  it('keeps a secret out of action and dialogue, and never mentions another character', async () => {
    const input = '钟声是从哪里来的？';
    const marco = await json('story/character', characterMessages('Marco', 'marco', MARCO.persona, MARCO.knowledge, input), CharacterProposalSchema);
    expect(`${marco.action}${marco.dialogue}`).not.toContain('钥匙');
    const lia = await json('story/character', characterMessages('Lia', 'lia', LIA.persona, LIA.knowledge, input), CharacterProposalSchema);
    const liaText = JSON.stringify(lia);
    expect(liaText).not.toContain('Marco');
    expect(liaText).not.toContain('买家');
    expect(lia.dialogue).toBe('午夜的钟声已经连续响了五天。');
  });

  it('acknowledges a lasting requirement only when addressed (by name or alias)', async () => {
    const input = '从现在起莉娅都用短句回答。';
    const lia = await json('story/character', characterMessages('Lia', 'lia', LIA.persona, LIA.knowledge, input), CharacterProposalSchema);
    const marco = await json('story/character', characterMessages('Marco', 'marco', MARCO.persona, MARCO.knowledge, input), CharacterProposalSchema);
    expect(lia.dialogue).toBe('好，我记住了。');
    expect(marco.dialogue).toBe('');
  });
});

describe('story/research', () => {
  it('picks the snippet facts related to the input, without snippet labels', async () => {
    const snippets = '[1] (local: guide#0) 雾港位于北湾，冬季多雾。灯塔建于一百年前，灯油每月补给一次。\nThe bell tower stands next to the fish market.';
    const value = await json('story/research', researchMessages('# 已发生的公开事件\n', snippets, '灯塔的灯为什么这么暗？'), ResearchBriefSchema);
    expect(value.facts).toEqual(['灯塔建于一百年前，灯油每月补给一次。']);
    expect(value.continuity).toContain('灯塔的灯为什么这么暗');
    for (const text of [...value.facts, value.continuity]) {
      expectClean(text);
      expect(text).not.toMatch(/\[1\]|local:/);
    }
  });

  it('continues from the last public event', async () => {
    const history = '# 已发生的公开事件\n<!-- troupe:settle story:x -->\n- 玩家来到码头。';
    const value = await json('story/research', researchMessages(history, '(none)', '你好'), ResearchBriefSchema);
    expect(value.continuity).toContain('玩家来到码头');
    expect(value.continuity).not.toContain('troupe:settle');
  });
});

describe('story/director', () => {
  it('turns proposals into beats and writes a note for every listed section', async () => {
    const proposals = '- Lia (lia): intent 想帮忙; action Lia抬起头，留意到玩家的话; says "灯油只够三夜。"\n- Marco (marco): intent 守秘密; action Marco转过身来; says ""';
    const sections = '- scene [prose] "场景" focus: all participants\n- voices [character] "人物反应" focus: Lia';
    const value = await json('story/director', directorMessages('- 灯塔建于一百年前。\n接着此前的事。', proposals, sections, '灯塔怎么了？'), DirectorPlanSchema);
    expect(value.beats).toEqual(['背景：灯塔建于一百年前。', 'Lia：抬起头；说：“灯油只够三夜。”', 'Marco：转过身来']);
    expect(value.sectionNotes.map((note) => note.sectionId)).toEqual(['scene', 'voices']);
    expect(value.sectionNotes[1]?.note).toContain('Lia');
    expect(value.sectionNotes[1]?.note).not.toContain('Marco');
  });
});

describe('story/section', () => {
  const beats = ['背景：雾港位于北湾，冬季多雾。', 'Lia：抬起头；说：“午夜的钟声已经连续响了五天。”', 'Marco：转过身来'];
  const input = '（夜雾中走上码头）钟声是从哪里来的？';

  it('a prose section sets the scene, answers the player without restating their words and names the cast — no scaffolding', async () => {
    const response = await model.generate(request('story/section', sectionMessages('场景', 'prose', 'all participants', '# 场景\n\n描写码头。', beats, input)));
    expect(response.text).toBe('雾港位于北湾，冬季多雾。你的问题落下，四周安静了一瞬。Lia和Marco都转头看向你。');
    expect(response.text).not.toContain('钟声是从哪里来的');
    expect(response.text).not.toContain('夜雾中走上码头');
    expectClean(response.text);
  });

  it('a character section gives each character their action and line, honouring the focus', async () => {
    const all = await model.generate(request('story/section', sectionMessages('人物反应', 'character', 'all participants', '# 人物反应', beats, input)));
    expect(all.text).toBe('Lia抬起头：“午夜的钟声已经连续响了五天。”Marco转过身来，没有说话。');
    const focused = await model.generate(request('story/section', sectionMessages('Lia 的视角', 'character', 'Lia (lia)', '', beats, input)));
    expect(focused.text).toContain('Lia抬起头');
    expect(focused.text).not.toContain('Marco');
  });

  it('a history section recaps the plan facts and ties them to this turn without quoting the player', async () => {
    const response = await model.generate(request('story/section', sectionMessages('往事', 'history', 'all participants', '', beats, input)));
    expect(response.text).toBe('雾港位于北湾，冬季多雾。而此刻，你的问题把这些旧事重新提了起来。');
    expect(response.text).not.toContain('钟声是从哪里来的');
  });

  it('reads the input from the Player input block, not the whole message', async () => {
    const response = await model.generate(request('story/section', sectionMessages('Scene', 'prose', 'all participants', '(none)', ['Background: The inn is warm.', 'Bram: waves; says "Welcome."'], 'I open the door.')));
    expect(response.text).toBe('The inn is warm. Your words settle over the scene. Bram turns to look at you.');
    expect(response.text).not.toContain('open the door');
  });
});

describe('story/editor', () => {
  it('keeps each section under its heading in order and removes repeated sentences', async () => {
    const draft = '## 场景\n\n雾很大。你开口问道：“钟声呢？”\n\n## 人物反应\n\n雾很大。Lia抬起头：“五天了。”';
    const response = await model.generate(request('story/editor', [{ role: 'user', content: draft }]));
    expect(response.text).toBe('## 场景\n\n雾很大。你开口问道：“钟声呢？”\n\n## 人物反应\n\nLia抬起头：“五天了。”');
  });

  it('a single prose section stays natural text', async () => {
    const response = await model.generate(request('story/editor', [{ role: 'user', content: 'The fog rolls in. Lia waits. The fog rolls in.' }]));
    expect(response.text).toBe('The fog rolls in. Lia waits.');
  });
});

describe('story/continuity', () => {
  const reply = '## 场景\n\n雾港位于北湾。夜雾中走上码头的你开口问道：“钟声是从哪里来的？”Lia和Marco都转头看向你。\n\n## 人物反应\n\nLia抬起头：“午夜的钟声已经连续响了五天。”';
  const participants = '- lia: Lia\n- marco: Marco\n- old-ren: Old Ren';

  it('fills the schema with clean text: the public event, observations of named characters, one proposal', async () => {
    const value = await json('story/continuity', continuityMessages(reply, '# 伏笔\n\n- 钟楼的钥匙少了一把。\n- Lia 的旧烧伤。', participants), ContinuityResultSchema);
    expect(value.publicEvents).toEqual(['夜雾中走上码头的玩家开口问道：“钟声是从哪里来的？”']);
    expect(value.observations).toEqual([
      { characterId: 'lia', facts: ['Lia抬起头：“午夜的钟声已经连续响了五天。”'] },
      { characterId: 'marco', facts: ['Lia和Marco都转头看向玩家。'] },
    ]);
    expect(value.proposals.length).toBeLessThanOrEqual(1);
    for (const text of [...value.publicEvents, ...value.observations.flatMap((o) => o.facts), ...value.proposals]) expectClean(text);
  });

  it('proposes nothing when no foreshadowing relates to the reply', async () => {
    const value = await json('story/continuity', continuityMessages(reply, '(empty)', participants), ContinuityResultSchema);
    expect(value.proposals).toEqual([]);
  });
});
