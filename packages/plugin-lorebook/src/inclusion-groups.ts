import type { Candidate } from './candidate.js';
import type { RandomSource } from './seeded-random.js';

/** Why an entry lost its inclusion group. */
export type GroupLoss = 'group-sticky' | 'group-score' | 'group-already-active' | 'group-draw';

/** What the group filter needs from the scan. */
export interface GroupContext {
  readonly isSticky: (candidate: Candidate) => boolean;
  /** ST's key-match score of an entry (see `keyScore`). */
  readonly score: (candidate: Candidate) => number;
  /** Whether an entry from an earlier pass already holds the group. */
  readonly groupTaken: (group: string) => boolean;
  readonly useGroupScoring: boolean;
  readonly random: RandomSource;
}

/**
 * SillyTavern's inclusion groups: of the entries matched in one pass, at most one per group is
 * inserted. Sticky members win outright; then (with group scoring) only the best key-match scores
 * stay; a group already held by an earlier pass admits none; a `groupOverride` member with the
 * highest order wins; otherwise one member is drawn by `groupWeight`.
 * @param matched - the pass's matched candidates, in priority order (not mutated)
 * @param context - sticky test, scoring, earlier groups and the random source
 * @returns the candidates that stay, and the losers with why
 */
export function filterInclusionGroups(matched: readonly Candidate[], context: GroupContext): { kept: Candidate[]; lost: Map<Candidate, GroupLoss> } {
  const groups = new Map<string, Candidate[]>();
  for (const candidate of matched) {
    for (const group of candidate.entry.groups) {
      const members = groups.get(group) ?? [];
      members.push(candidate);
      groups.set(group, members);
    }
  }
  const lost = new Map<Candidate, GroupLoss>();
  if (groups.size === 0) return { kept: [...matched], lost };
  const lose = (candidate: Candidate, why: GroupLoss): void => {
    if (!lost.has(candidate)) lost.set(candidate, why);
  };

  const hasSticky = new Set<string>();
  for (const [group, members] of groups) {
    const sticky = members.filter(context.isSticky);
    if (sticky.length === 0) continue;
    hasSticky.add(group);
    for (const member of members) if (!sticky.includes(member)) lose(member, 'group-sticky');
  }

  for (const [group, members] of groups) {
    if (hasSticky.has(group)) continue;
    if (!context.useGroupScoring && !members.some((member) => member.entry.useGroupScoring === true)) continue;
    const scores = members.map(context.score);
    const best = Math.max(...scores);
    const survivors: Candidate[] = [];
    members.forEach((member, index) => {
      const scored = member.entry.useGroupScoring ?? context.useGroupScoring;
      if (scored && (scores[index] ?? 0) < best) lose(member, 'group-score');
      else survivors.push(member);
    });
    groups.set(group, survivors);
  }

  for (const [group, members] of groups) {
    if (hasSticky.has(group)) continue;
    if (context.groupTaken(group)) {
      for (const member of members) lose(member, 'group-already-active');
      continue;
    }
    if (members.length <= 1) continue;
    const overrides = members.filter((member) => member.entry.groupOverride).sort((a, b) => b.entry.order - a.entry.order);
    const winner = overrides[0] ?? draw(members, context.random);
    if (winner === undefined) continue;
    for (const member of members) if (member !== winner) lose(member, 'group-draw');
  }
  return { kept: matched.filter((candidate) => !lost.has(candidate)), lost };
}

// Weighted draw: a roll in [0, total) lands in the member whose cumulative weight covers it.
function draw(members: readonly Candidate[], random: RandomSource): Candidate | undefined {
  const total = members.reduce((sum, member) => sum + member.entry.groupWeight, 0);
  const roll = random() * total;
  let cumulative = 0;
  for (const member of members) {
    cumulative += member.entry.groupWeight;
    if (roll <= cumulative) return member;
  }
  return undefined;
}
