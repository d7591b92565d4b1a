import { EVENT_NOTES, STAGE_NAMES } from './stage-names.js';

/** Player-facing names of what a degraded stage fell back to (`agent-rp/story-degraded` `fallback`). */
const FALLBACKS: Readonly<Record<string, string>> = {
  'plain-character-flow': '普通角色流程 plain character flow',
  'section-drafts': '使用分区草稿 section drafts',
  'fallback-plan': '后备方案 fallback plan',
  snippets: '使用检索片段 snippets',
  skipped: '跳过 skipped',
  clipped: '截短 clipped',
  'local-only': '仅本地资料 local only',
  'reply-only': '只写入正文 reply only',
  'record-unchanged': '记录未改 record unchanged',
};

interface Degraded {
  readonly stage?: unknown;
  readonly item?: unknown;
  readonly fallback?: unknown;
  readonly error?: { readonly code?: unknown; readonly message?: unknown } | null;
}

/**
 * The note the chat shows for a live turn event, or undefined when it shows none. A story
 * degradation says which stage fell back to what and why (the event's own stage, item, fallback
 * and error), so a player sees what the pipeline left out instead of a bare "degraded".
 * @param type - the event type
 * @param data - the event's data, as streamed
 */
export function eventNote(type: string, data: unknown): string | undefined {
  const fixed = EVENT_NOTES[type];
  if (type !== 'agent-rp/story-degraded' || typeof data !== 'object' || data === null) return fixed;
  const { stage, item, fallback, error } = data as Degraded;
  if (typeof stage !== 'string') return fixed;
  const where = `${STAGE_NAMES[stage] ?? stage}${typeof item === 'string' ? ` · ${item}` : ''}`;
  const to = typeof fallback === 'string' ? ` → ${FALLBACKS[fallback] ?? fallback}` : '';
  const code = typeof error?.code === 'string' ? `${error.code}: ` : '';
  const why = typeof error?.message === 'string' ? `: ${code}${error.message}` : '';
  return `${fixed} — ${where}${to}${why}`;
}
