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
};
