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

/**
 * The instant model's answers, each after exactly `ms` (rejected with the signal's reason when
 * the request is cancelled): the fixed-latency model of the wall / ideal benches.
 * @param {number} ms - latency of every call
 * @param {{ continuity?: () => unknown, actor?: () => string }} [answers] - replacements
 * @returns a ChatModel
 */
export function fixedLatencyModel(ms, answers = {}) {
  const instant = instantModel(answers);
  return {
    id: `latency-${ms}ms`,
    async generate(request) {
      await new Promise((resolve, reject) => {
        const onAbort = () => {
          clearTimeout(timer);
          reject(request.signal.reason);
        };
        const timer = setTimeout(() => {
          request.signal.removeEventListener('abort', onAbort);
          resolve();
        }, ms);
        request.signal.addEventListener('abort', onAbort, { once: true });
      });
      return instant.generate(request);
    },
  };
}
