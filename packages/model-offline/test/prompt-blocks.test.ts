import { describe, expect, it } from 'vitest';
import { splitPlayerInput } from '../src/player-input.js';
import { parsePromptBlocks as parseBlocks } from '@troupe/kernel/stage-prompt';
import { plainLines, readBlocks } from '../src/prompt-blocks.js';
import { readPlayerInput } from '../src/player-input.js';
import { splitSentences } from '../src/text.js';

describe('prompt blocks', () => {
  it('splits a stage message by its labelled headings, keeping # titles in the body', () => {
    const blocks = parseBlocks('intro\n## Persona\n# Lia（莉娅）\n\n守灯人。\n\n## Player input\n你好');
    expect(blocks).toEqual([
      { heading: 'Persona', body: '# Lia（莉娅）\n\n守灯人。' },
      { heading: 'Player input', body: '你好' },
    ]);
  });

  it('keeps ## headings inside a labelled block when the message uses the pipeline labels', () => {
    const blocks = readBlocks([{ role: 'user', content: '## Visible reply\n## 场景\n\n雾。\n\n## 人物反应\n\nLia。\n\n## Participants\n- lia: Lia' }]);
    expect(blocks.get('visible reply')).toBe('## 场景\n\n雾。\n\n## 人物反应\n\nLia。');
    expect(blocks.get('participants')).toBe('- lia: Lia');
  });

  it('splits on every ## heading in a message without pipeline labels', () => {
    expect(parseBlocks('## A\nx\n## B\ny').map((block) => block.heading)).toEqual(['A', 'B']);
  });

  it('plain lines drop headings, comments, placeholders and bullets', () => {
    expect(plainLines('# Title\n<!-- troupe:settle x -->\n- one\n\n(none)\n2. two')).toEqual(['one', 'two']);
  });

  it('takes the player input from its block, and splits off a stage direction', () => {
    const input = readPlayerInput([
      { role: 'user', content: '## Section reference\n# 场景\n\n## Player input\n（夜雾中走上码头）你好，这里是雾港吗？' },
    ]);
    expect(input).toMatchObject({ direction: '夜雾中走上码头', speech: '你好，这里是雾港吗？', topic: '这里是雾港吗', asks: true, chinese: true });
    expect(splitPlayerInput('*waves* Hello there.')).toMatchObject({ direction: 'waves', speech: 'Hello there.', asks: false, chinese: false });
  });

  it('splits sentences keeping closing quotes with them', () => {
    expect(splitSentences('他说：“走吧。”雾很大。Then. “好？”')).toEqual(['他说：“走吧。”', '雾很大。', 'Then.', '“好？”']);
  });
});
