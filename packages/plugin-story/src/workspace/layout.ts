/** Files every workspace has. `outline.md` and `foreshadowing.md` are written only by the player. */
export const WORKSPACE_FILES = Object.freeze({
  manifest: 'manifest.json',
  outline: 'outline.md',
  foreshadowing: 'foreshadowing.md',
  proposals: 'proposals.md',
  history: 'history.md',
});

/** Path of a character's persona. @param id - character id */
export const personaPath = (id: string): string => `characters/${id}/persona.md`;
/** Path of a character's private knowledge. @param id - character id */
export const knowledgePath = (id: string): string => `characters/${id}/knowledge.md`;
/** Path of a section's reference text. @param id - section id */
export const sectionPath = (id: string): string => `sections/${id}.md`;
/** Path of a source document. @param id - source id */
export const sourcePath = (id: string): string => `sources/${id}.md`;
