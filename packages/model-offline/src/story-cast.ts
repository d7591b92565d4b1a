import type { ChatMessage } from '@troupe/kernel';
import { plainLines, stageBlock, titleOf } from './prompt-blocks.js';

/** A character named by a story stage prompt. */
export interface CastMember {
  /** Stable id when the prompt gives one ("lia"), otherwise the name. */
  readonly id: string;
  readonly name: string;
}

/**
 * The character a character-worker prompt is about: "You play X (id)" in the system message,
 * otherwise the persona file's title ("# Lia（莉娅）" → Lia).
 * @param messages - the request's messages
 * @param blocks - the request's blocks
 */
export function playedCharacter(messages: readonly ChatMessage[], blocks: ReadonlyMap<string, string>): CastMember | undefined {
  for (const message of messages) {
    if (message.role !== 'system') continue;
    const match = /\bYou play (.+?)(?: \(([^)]+)\))?(?: only)?[.,]/.exec(message.content);
    if (match) return { id: match[2] ?? match[1]!, name: match[1]! };
  }
  const title = titleOf(stageBlock(blocks, 'persona'));
  if (!title) return undefined;
  const name = title.replace(/[（(].*$/u, '').trim();
  return name ? { id: name, name } : undefined;
}

/**
 * Participants listed as "- id: Name" lines (the continuity worker's `## Participants` block).
 * @param body - the block body
 */
export function participantsIn(body: string | undefined): CastMember[] {
  const cast: CastMember[] = [];
  for (const line of plainLines(body)) {
    const match = /^([\w.-]+)\s*:\s*(.+)$/u.exec(line);
    if (match) cast.push({ id: match[1]!, name: match[2]!.trim() });
  }
  return cast;
}

/** One character proposal as the director receives it. */
export interface ListedProposal extends CastMember {
  readonly intent: string;
  readonly action: string;
  readonly dialogue: string;
}

/**
 * Proposals listed as `- Name (id): intent …; action …; says "…"` (the director's block).
 * @param body - the `## Character proposals` block body
 */
export function proposalsIn(body: string | undefined): ListedProposal[] {
  const proposals: ListedProposal[] = [];
  for (const line of plainLines(body)) {
    const match = /^(.+?) \(([^)]+)\): intent (.*?); action (.*?); says "(.*)"$/u.exec(line);
    if (match) proposals.push({ name: match[1]!, id: match[2]!, intent: match[3]!, action: match[4]!, dialogue: match[5]! });
  }
  return proposals;
}

/** A section as the director lists it. */
export interface ListedSection {
  readonly id: string;
  readonly kind: string;
  readonly title: string;
  /** The focused character's name, or undefined for all participants. */
  readonly focus: string | undefined;
}

/**
 * Sections listed as `- id [kind] "Title" focus: Name` (the director's `## Sections` block).
 * @param body - the block body
 */
export function sectionsIn(body: string | undefined): ListedSection[] {
  const sections: ListedSection[] = [];
  for (const line of plainLines(body)) {
    const match = /^(\S+) \[(\w+)\] "(.*)" focus: (.+)$/u.exec(line);
    if (match) sections.push({ id: match[1]!, kind: match[2]!, title: match[3]!, focus: match[4] === 'all participants' ? undefined : match[4] });
  }
  return sections;
}
