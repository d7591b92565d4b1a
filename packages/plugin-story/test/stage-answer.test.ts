import { describe, expect, it } from 'vitest';
import { parseJsonOutput } from '../src/pipeline/stage-call.js';
import { CharacterProposalSchema } from '../src/stages/character.js';

const proposal = { intent: 'help', action: 'Lia opens the door', dialogue: '“进来吧”' };

describe('a structured stage answer (the model is a trust boundary)', () => {
  it('accepts bare JSON and JSON in a Markdown fence, with or without a language tag', () => {
    const json = JSON.stringify(proposal);
    for (const text of [json, ` \n${json}\n`, `\`\`\`json\n${json}\n\`\`\``, `\`\`\`\n${json}\n\`\`\``, `  \`\`\`JSON ${json} \`\`\`  \n`]) {
      expect(parseJsonOutput(text, CharacterProposalSchema, 'story/character'), text).toEqual(proposal);
    }
    // A fence inside a JSON string is part of the value, not a wrapper.
    expect(parseJsonOutput(JSON.stringify({ ...proposal, dialogue: 'say ```hi```' }), CharacterProposalSchema, 'story/character').dialogue).toBe('say ```hi```');
  });

  it('rejects text that is not JSON, and JSON that does not fit, with STORY_STAGE_OUTPUT_INVALID naming the field', () => {
    const failure = (text: string) => {
      try {
        parseJsonOutput(text, CharacterProposalSchema, 'story/character');
      } catch (error) {
        return error as { code?: string; field?: string; message: string };
      }
      throw new Error('accepted');
    };
    expect(failure('Lia opens the door.')).toMatchObject({ code: 'STORY_STAGE_OUTPUT_INVALID', message: expect.stringContaining('did not return JSON') });
    expect(failure('```json\n{"intent": \n```')).toMatchObject({ code: 'STORY_STAGE_OUTPUT_INVALID', message: expect.stringContaining('did not return JSON') });
    expect(failure(JSON.stringify({ ...proposal, action: '' }))).toMatchObject({ code: 'STORY_STAGE_OUTPUT_INVALID', field: 'action' });
    expect(failure(`\`\`\`json\n${JSON.stringify({ intent: 'x', dialogue: 'y' })}\n\`\`\``)).toMatchObject({ code: 'STORY_STAGE_OUTPUT_INVALID', field: 'action' });
  });
});
