/** Player-facing names of the story pipeline stages and of other live turn events. */
export const STAGE_NAMES: Readonly<Record<string, string>> = {
  'story/research': '研究 Research',
  'story/character': '人物 Character',
  'story/director': '导演 Director',
  'story/section': '分区 Section',
  'story/editor': '编辑 Editor',
  'story/continuity': '连续性 Continuity',
};

/** Short descriptions of live events worth showing while a turn runs. */
export const EVENT_NOTES: Readonly<Record<string, string>> = {
  'dio/scheduled': '长期要求已提交给 DIO（从后续回合生效）· Lasting requirement sent to DIO',
  'dio/schedule-failed': 'DIO 未接受这条要求 · DIO did not accept the requirement',
  'dio/active-prompt-applied': '本回合使用 DIO 编译的人物提示 · Using the DIO compiled prompt',
  'dio/active-prompt-none': '暂无 DIO 编译提示 · No compiled prompt yet',
  'dio/active-prompt-degraded': 'DIO 查询失败，使用原提示 · DIO lookup failed, base prompt used',
  'agent-rp/story-draft-prepared': '故事草稿已准备好 · Story draft ready',
  'agent-rp/story-draft-replayed': '复用已准备的草稿 · Draft replayed',
  'agent-rp/story-degraded': '故事流水线降级 · Story pipeline degraded',
  'agent-rp/story-settled': '回合已沉淀到故事文件 · Turn settled into the story files',
  'kernel/turn-committed': '回合已保存 · Turn saved',
  'kernel/director-json-fallback': '导演模型不支持工具调用，改用 JSON 决定 · Director model has no tool calling; asked for a JSON decision',
};

/** The director's tools (DIO's `schedule_dio`) could not be offered this turn: shown once, as a banner. */
export const DIRECTOR_TOOLS_UNAVAILABLE = 'kernel/director-tools-unavailable';

/** The banner text for {@link DIRECTOR_TOOLS_UNAVAILABLE}. */
export const TOOLS_UNAVAILABLE_NOTICE =
  '导演模型既不能调用工具，也没有给出有效的 JSON 决定：本会话中长期要求（DIO）可能无法提交。· The director model could neither call tools nor answer a valid JSON decision: lasting requirements (DIO) may not be submitted in this chat.';

/** The stream's event that the reply is saved (in the session log); what runs after it cannot be undone by Stop. */
export const TURN_COMMITTED = 'kernel/turn-committed';
