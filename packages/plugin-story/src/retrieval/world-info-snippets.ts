import type { ActivatedWorldInfo } from '@troupe/kernel';
import type { Snippet } from './snippet.js';

/**
 * The world info activated this turn (`contextKeys.worldInfo`) as research snippets. World info
 * is public material — the setting every character and the reader share — so only the research
 * worker receives it (as relevant local material, the seed's "相关本地资料"); character workers
 * never do, and the director sees it only through the research brief.
 * @param worldInfo - the turn's activated entries, if any
 * @returns one snippet per entry with content, in placement order
 */
export function worldInfoSnippets(worldInfo: ActivatedWorldInfo | undefined): Snippet[] {
  if (!worldInfo) return [];
  return worldInfo.entries
    .filter((entry) => entry.content.trim() !== '')
    .map((entry) => ({ origin: 'world-info' as const, ref: entry.id, title: entry.comment || entry.id, text: entry.content.trim() }));
}
