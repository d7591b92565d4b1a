/** Tokens of one visible exchange (`GET /api/sessions/:id/token-counts`). */
export interface MessageTokenCount {
  readonly turnId: string;
  readonly step: number;
  readonly input: number;
  readonly reply: number;
}

/** Where a block of the actor's prompt came from (the server's `PromptBlockSource`). */
export type PromptBlockSource = 'input' | 'history' | 'continuation' | 'worldInfo' | 'dio' | 'storyDraft' | 'prompt';

/** One message of the actor's prompt. */
export interface PromptBlockView {
  readonly index: number;
  readonly role: string;
  readonly name?: string;
  readonly source: PromptBlockSource | string;
  readonly tokens: number;
  readonly chars: number;
  readonly preview: string;
  readonly truncated: boolean;
}

/** `GET /api/sessions/:id/turns/:turnId/prompt`: the itemized prompt of a step. */
export interface PromptItemization {
  readonly turnId: string;
  readonly step: number;
  readonly kept: boolean;
  readonly blocks: readonly PromptBlockView[];
  readonly totalTokens: number;
  readonly contextTokens: number;
  readonly responseTokens: number;
  readonly promptTokens: number;
  readonly tokenizer: { readonly id: string; readonly exact: boolean };
  readonly calibration: number;
}

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
