// A model that answers every story stage at once with schema-conforming output, for the
// zero-latency benches. `continuity` and `actor` may be replaced (e.g. to grow the history).

/**
 * @param {{ continuity?: () => unknown, actor?: () => string }} [answers] - replacements
 * @returns a ChatModel
 */
export function instantModel(answers = {}) {
  return {
    id: 'instant',
    async generate(request) {
      switch (request.meta.stage) {
        case 'story/research':
          return { text: JSON.stringify({ facts: ['fact'], continuity: 'ok' }) };
        case 'story/character':
          return { text: JSON.stringify({ intent: 'i', action: 'acts', dialogue: 'hi' }) };
        case 'story/director':
          return { text: JSON.stringify({ beats: ['beat'], sectionNotes: [] }) };
        case 'story/section':
          return { text: 'A paragraph of story text.' };
        case 'story/editor':
          return { text: request.messages.at(-1)?.content ?? '' };
        case 'story/continuity':
          return { text: JSON.stringify(answers.continuity ? answers.continuity() : { publicEvents: ['event'], observations: [], proposals: [] }) };
        default:
          return { text: answers.actor ? answers.actor() : 'Actor reply.' };
      }
    },
  };
}
