import type { ChatMessage } from '@troupe/kernel';
import * as z from 'zod';

// Messages in the exact shape @troupe/plugin-story's stages send (packages/plugin-story/src/stages).

export const CharacterProposalSchema = z.object({ intent: z.string(), action: z.string().min(1), dialogue: z.string() });
export const ResearchBriefSchema = z.object({ facts: z.array(z.string().min(1)).max(20), continuity: z.string() });
export const DirectorPlanSchema = z.object({
  beats: z.array(z.string().min(1)).min(1).max(20),
  sectionNotes: z.array(z.object({ sectionId: z.string(), note: z.string() })),
});
export const ContinuityResultSchema = z.object({
  publicEvents: z.array(z.string().min(1)).max(50),
  observations: z.array(z.object({ characterId: z.string(), facts: z.array(z.string().min(1)).max(50) })).max(50),
  proposals: z.array(z.string().min(1)).max(50),
});

export function characterMessages(name: string, id: string, persona: string, knowledge: string, playerInput: string): ChatMessage[] {
  return [
    {
      role: 'system',
      content: `You play ${name} (${id}) only. Decide what this character wants, does and says next, using ONLY what this character knows. Output JSON {"intent": string, "action": string, "dialogue": string}.`,
    },
    { role: 'user', content: `## Persona\n${persona}\n\n## What ${name} knows\n${knowledge}\n\n## Player input\n${playerInput}` },
  ];
}

export function researchMessages(history: string, snippets: string, playerInput: string): ChatMessage[] {
  return [
    { role: 'system', content: 'You are the research worker of a story pipeline. Output JSON {"facts": string[], "continuity": string}.' },
    { role: 'user', content: `## Public history\n${history}\n\n## Recent conversation\n(none)\n\n## Reference snippets\n${snippets}\n\n## Player input\n${playerInput}` },
  ];
}

export function directorMessages(brief: string, proposals: string, sections: string, playerInput: string): ChatMessage[] {
  return [
    { role: 'system', content: 'You are the director of a multi-character story. Output JSON {"beats": string[], "sectionNotes": [{"sectionId": string, "note": string}]}.' },
    {
      role: 'user',
      content: `## Outline\n# 大纲\n\n1. 相遇。\n\n## Foreshadowing\n(empty)\n\n## Public history\n(empty)\n\n## Research brief\n${brief}\n\n## Character proposals\n${proposals}\n\n## Sections\n${sections}\n\n## Player input\n${playerInput}`,
    },
  ];
}

export function sectionMessages(title: string, kind: string, focus: string, reference: string, beats: readonly string[], playerInput: string): ChatMessage[] {
  return [
    {
      role: 'system',
      content: `You write the "${title}" section (${kind}) of this turn's story text. Write narration. Focus: ${focus}. Output only the section's text, without a heading.`,
    },
    { role: 'user', content: `## Section reference\n${reference}\n\n## Director's plan\n${beats.map((b) => `- ${b}`).join('\n')}\n\n\n## Player input\n${playerInput}` },
  ];
}

export function continuityMessages(visibleReply: string, foreshadowing: string, participants: string): ChatMessage[] {
  return [
    { role: 'system', content: 'You are the continuity worker. Output JSON {"publicEvents": string[], "observations": [{"characterId": string, "facts": string[]}], "proposals": string[]}.' },
    { role: 'user', content: `## Visible reply\n${visibleReply}\n\n## Outline\n# 大纲\n\n1. 相遇。\n\n## Foreshadowing\n${foreshadowing}\n\n## Participants\n${participants}` },
  ];
}

/** The actor assembler's story-draft system message (plugin-actor-assembler/src/story-draft.ts). */
export function storyDraftMessage(text: string): string {
  return `The story for this turn has already been written and reviewed (below). Deliver it as your reply. You may only adapt the voice and keep its existing format: do not add, remove, reorder or change events, facts, decisions or spoken lines.\n\n<story_draft>\n${text}\n</story_draft>`;
}

/** Text a stage must never echo: prompt labels and the old template's scaffolding. */
export const SCAFFOLDING = ['## ', 'Section reference', "Director's plan", 'Player input', 'Visible reply', 'Persona', '旁白与', '旁白回应', '(none)', '(empty)', 'deliver it'];
