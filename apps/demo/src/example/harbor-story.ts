/**
 * The example story workspace the showcase creates: "雾港 / Fog Harbor", three characters (one
 * keeps a secret the others do not know), two sections and one source document.
 * Chinese text with English names, so both tokenizers and both languages are exercised.
 */
export const HARBOR_STORY_ID = 'fog-harbor';

/** Files of the example workspace, keyed by path inside the workspace. */
export const harborStoryFiles: Readonly<Record<string, string>> = {
  'outline.md': [
    '# 雾港 Fog Harbor — 大纲',
    '',
    '1. 夜雾中，灯塔守护者 Lia 与旅人（玩家）在码头相遇。',
    '2. 港口的钟在午夜无故响起，镇上的人都说那是“旧船”的信号。',
    '3. 走私商人 Marco 想趁雾出港，他需要 Lia 熄灭灯塔。',
    '4. 真相逐步揭开：钟声与二十年前沉没的“晨星号”有关。',
    '',
  ].join('\n'),
  'foreshadowing.md': [
    '# 伏笔',
    '',
    '- Lia 左手腕上有一道旧烧伤，她从不解释。',
    '- 钟楼的钥匙少了一把。',
    '- Marco 的货箱上印着“晨星号”的旧徽记。',
    '',
  ].join('\n'),
  'proposals.md': '# 建议（由写作流程提出，玩家决定是否采纳）\n',
  'history.md': '# 已发生的公开事件\n',
  'characters/lia/persona.md': [
    '# Lia（莉娅）',
    '',
    '灯塔守护者，二十六岁。说话温和、爱用比喻，习惯把天气和情绪连在一起说。',
    '她守着灯塔，也守着一个关于父亲的问题。',
    '',
  ].join('\n'),
  'characters/lia/knowledge.md': ['# Lia 知道的事', '', '- 灯塔的灯油只够再烧三夜。', '- 午夜的钟声已经连续响了五天。', ''].join('\n'),
  'characters/marco/persona.md': ['# Marco（马可）', '', '走私商人，圆滑、话多，总在讨价还价。', ''].join('\n'),
  'characters/marco/knowledge.md': [
    '# Marco 知道的事',
    '',
    '- 秘密：钟楼少的那把钥匙在 Marco 身上，钟声是他为接头而敲的。',
    '- 他的买家只在起雾的夜里靠岸。',
    '',
  ].join('\n'),
  'characters/old-ren/persona.md': ['# Old Ren（老任）', '', '码头的老渔夫，记得“晨星号”沉没那一夜，话少。', ''].join('\n'),
  'characters/old-ren/knowledge.md': ['# Old Ren 知道的事', '', '- 晨星号沉没那夜，灯塔的灯是灭的。', ''].join('\n'),
  'sections/scene.md': '# 场景\n\n描写此刻码头上的景象、雾和声音，推进当前情节。\n',
  'sections/voices.md': '# 人物反应\n\n写在场人物对玩家这句话的反应与对白。\n',
  'sources/harbor-guide.md': [
    '# 雾港导览 Harbor Guide',
    '',
    '雾港位于北湾，冬季多雾。灯塔建于一百年前，塔高三十二米，灯油由镇上每月补给一次。',
    'The bell tower stands next to the fish market; its bell is rung only for storms and funerals.',
    '晨星号（Morning Star）是一艘货船，二十年前在港外触礁沉没，船上十二人无一生还。',
    'Fog in the harbor usually lifts an hour after sunrise.',
    '',
  ].join('\n'),
};

/** The workspace manifest the showcase writes (the store owns `revision`). */
export const harborManifest = {
  name: '雾港 Fog Harbor',
  characters: [
    { id: 'lia', name: 'Lia', enabled: true },
    { id: 'marco', name: 'Marco', enabled: true },
    { id: 'old-ren', name: 'Old Ren', enabled: true },
  ],
  sources: [{ id: 'harbor-guide', title: '雾港导览 Harbor Guide', enabled: true }],
  sections: [
    { id: 'scene', title: '场景', kind: 'prose', order: 0, enabled: true, focus: null },
    { id: 'voices', title: '人物反应', kind: 'character', order: 1, enabled: true, focus: null },
  ],
  pipeline: { maxParallel: 4 },
};
