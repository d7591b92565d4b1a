import type { SectionDraft } from '../stages/editor.js';
import { assembleDrafts } from '../stages/editor.js';
import { clipToTokens } from './clip-text.js';
import { waterFill } from './water-fill.js';

/** A section whose draft was cut to fit: how many tokens it had and how many it kept. */
export interface ClippedDraft {
  readonly id: string;
  readonly title: string;
  readonly tokens: number;
  readonly kept: number;
}

/** The drafts after {@link fitDrafts}: the ones kept (some clipped), the clipped and the dropped. */
export interface FittedDrafts {
  readonly drafts: readonly SectionDraft[];
  readonly clipped: readonly ClippedDraft[];
  /** Sections whose share was too small to keep any text. */
  readonly dropped: readonly ClippedDraft[];
}

// Room kept for counting drift between the parts and the whole (a tokenizer is not additive).
const SLACK_TOKENS = 8;

/**
 * Fits section drafts, as they are assembled for the editor and the actor, into `tokens`: when
 * they are over, the sections share what the headings leave — a section smaller than its share
 * stays whole, larger ones keep their start (water-filling, as stage prompts are fitted), so one
 * runaway section never pushes the others out. Drafts that fit (nearly every turn) are counted
 * once and returned as they are.
 * @param drafts - the section drafts in workspace order
 * @param tokens - the most tokens the assembled drafts may count
 * @param count - the counter `tokens` is in
 * @returns the fitted drafts and what was clipped or dropped (never throws)
 */
export function fitDrafts(drafts: readonly SectionDraft[], tokens: number, count: (text: string) => number): FittedDrafts {
  if (count(assembleDrafts(drafts)) <= tokens) return { drafts, clipped: [], dropped: [] };
  const sizes = drafts.map((d) => count(d.text));
  const skeleton = count(assembleDrafts(drafts.map((d) => ({ ...d, text: '' }))));
  const shares = waterFill(sizes, Math.max(0, tokens - skeleton - SLACK_TOKENS));
  const kept: SectionDraft[] = [];
  const clipped: ClippedDraft[] = [];
  const dropped: ClippedDraft[] = [];
  drafts.forEach((draft, i) => {
    if (sizes[i]! <= shares[i]!) {
      kept.push(draft);
      return;
    }
    const text = clipToTokens(draft.text, shares[i]!, count, 'head');
    const outcome = { id: draft.id, title: draft.title, tokens: sizes[i]!, kept: text ? count(text) : 0 };
    if (text) {
      kept.push({ ...draft, text });
      clipped.push(outcome);
    } else dropped.push(outcome);
  });
  return { drafts: kept, clipped, dropped };
}
