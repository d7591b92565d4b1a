import { describe, expect, it } from 'vitest';
import { wrapDialogue } from '../web/src/markdown/dialogue.js';
import type { MdElement, MdNode } from '../web/src/markdown/markdown-tree.js';
import { MESSAGE_TAGS } from '../web/src/markdown/markdown-tree.js';
import { renderMarkdown, treeText } from '../web/src/markdown/render-markdown.js';
import { safeUrl } from '../web/src/markdown/safe-url.js';

// The reply renderer: sanitised Markdown with SillyTavern's dialogue and action styling. The
// browser test (web-browser-message-text.test.ts) proves the same in a real page.

function elements(nodes: readonly MdNode[]): MdElement[] {
  return nodes.flatMap((node) => (typeof node === 'string' ? [] : [node, ...elements(node.children)]));
}

describe('renderMarkdown', () => {
  it('renders a heading, paragraphs and line breaks', () => {
    const tree = renderMarkdown('## 场景\n雨夜的港口。\n灯塔亮着。\n\n第二段');
    expect(tree[0]).toEqual({ tag: 'h2', children: ['场景'] });
    expect(tree[1]).toEqual({ tag: 'p', children: ['雨夜的港口。', { tag: 'br', children: [] }, '灯塔亮着。'] });
    expect(tree[2]).toEqual({ tag: 'p', children: ['第二段'] });
  });

  it('keeps raw HTML as visible text: no script, no img, no event attribute', () => {
    const text = 'Hi <script>alert(1)</script>\n\n<img src=x onerror="alert(2)">\n\n<div onclick="x()">d</div>';
    const tree = renderMarkdown(text);
    const tags = elements(tree).map((element) => element.tag);
    expect(tags).not.toContain('script');
    expect(tags).not.toContain('img');
    expect(tags).not.toContain('div');
    for (const element of elements(tree)) for (const name of Object.keys(element.attrs ?? {})) expect(name).not.toMatch(/^on/i);
    expect(treeText(tree)).toContain('<script>alert(1)</script>');
    expect(treeText(tree)).toContain('<img src=x onerror="alert(2)">');
  });

  it('drops javascript:, data: and vbscript: URLs from links and images, whatever their spelling', () => {
    for (const url of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', 'vbscript:x', 'data:text/html,<b>x</b>', ' javascript:alert(1)']) {
      const nodes = elements(renderMarkdown(`[click](${url}) ![pic](${url}) <${url}>`));
      for (const element of nodes) {
        expect(element.attrs?.href).toBeUndefined();
        expect(element.attrs?.src).toBeUndefined();
      }
    }
    const link = elements(renderMarkdown('[site](https://example.org/a?b=1)')).find((element) => element.tag === 'a');
    expect(link?.attrs?.href).toBe('https://example.org/a?b=1');
  });

  it('only ever produces allow-listed tags and attributes', () => {
    const text = '# a\n\n> quote *em* **strong** ~~s~~ `code`\n\n1. one\n2. two\n\n- x\n- y\n\n| a | b |\n|:-|-:|\n| 1 | 2 |\n\n```js\nlet x = "q";\n```\n\n---\n\n![p](https://example.org/p.png "t")';
    const allowed = new Set<string>(MESSAGE_TAGS);
    const all = elements(renderMarkdown(text));
    for (const element of all) {
      expect(allowed.has(element.tag)).toBe(true);
      for (const name of Object.keys(element.attrs ?? {})) expect(['href', 'src', 'alt', 'title', 'start', 'className']).toContain(name);
    }
    expect(all.map((element) => element.tag)).toEqual(expect.arrayContaining(['h1', 'blockquote', 'em', 'strong', 's', 'code', 'ol', 'ul', 'table', 'th', 'pre', 'hr', 'img']));
    expect(all.find((element) => element.tag === 'th')?.attrs).toEqual({ className: 'align-left' });
    expect(all.find((element) => element.tag === 'ol')?.attrs).toBeUndefined();
    expect(elements(renderMarkdown('3. three\n4. four')).find((element) => element.tag === 'ol')?.attrs).toEqual({ start: 3 });
    // Quotes inside code are code, not dialogue.
    expect(all.filter((element) => element.tag === 'q')).toEqual([]);
  });

  it('styles *actions* as emphasis and dialogue as q, as SillyTavern does', () => {
    const [paragraph] = renderMarkdown('*她推开门。* "你来了，" 她说，“外面下雨。” 「走吧」');
    expect(paragraph).toEqual({
      tag: 'p',
      children: [
        { tag: 'em', children: ['她推开门。'] },
        ' ',
        { tag: 'q', attrs: { className: 'dialogue' }, children: ['"你来了，"'] },
        ' 她说，',
        { tag: 'q', attrs: { className: 'dialogue' }, children: ['“外面下雨。”'] },
        ' ',
        { tag: 'q', attrs: { className: 'dialogue' }, children: ['「走吧」'] },
      ],
    });
  });
});

describe('wrapDialogue', () => {
  it('spans emphasis inside a quote, and leaves an unclosed quote as text', () => {
    expect(wrapDialogue(['"Go ', { tag: 'em', children: ['now'] }, '," she said.'])).toEqual([
      { tag: 'q', attrs: { className: 'dialogue' }, children: ['"Go ', { tag: 'em', children: ['now'] }, ',"'] },
      ' she said.',
    ]);
    expect(wrapDialogue(['“未闭合 「内」 的引号'])).toEqual(['“未闭合 ', { tag: 'q', attrs: { className: 'dialogue' }, children: ['「内」'] }, ' 的引号']);
  });

  it('never lets a quote cross a line break or enter code', () => {
    const br = { tag: 'br', children: [] } as const;
    expect(wrapDialogue(['"first', br, 'second"'])).toEqual(['"first', br, 'second"']);
    const code = { tag: 'code', children: ['"x"'] } as const;
    expect(wrapDialogue([code])).toEqual([code]);
  });
});

describe('safeUrl', () => {
  it('allows http(s), mailto and in-page anchors only', () => {
    expect(safeUrl('https://example.org')).toBe('https://example.org');
    expect(safeUrl('mailto:a@example.org')).toBe('mailto:a@example.org');
    expect(safeUrl('mailto:a@example.org', 'image')).toBeUndefined();
    expect(safeUrl('#part')).toBe('#part');
    expect(safeUrl('/relative')).toBeUndefined();
    expect(safeUrl('\u0001javascript:alert(1)')).toBeUndefined();
    expect(safeUrl('file:///etc/passwd')).toBeUndefined();
  });
});
