/** How each source is named in the prompt view (as SillyTavern's itemization groups them). */
export const SOURCE_LABELS: Readonly<Record<string, string>> = {
  prompt: '预设与角色 Preset & character',
  history: '聊天记录 Chat history',
  input: '玩家输入 Input',
  continuation: '续写 Continue',
  worldInfo: '世界书 World info',
  dio: 'DIO 长期要求',
  storyDraft: '故事草稿 Story draft',
};
