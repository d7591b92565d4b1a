import MarkdownIt, { type Token } from 'markdown-it';
import { wrapDialogue } from './dialogue.js';
import { type MdAttributes, type MdElement, type MdNode, MESSAGE_TAGS, type MessageTag } from './markdown-tree.js';
import { safeUrl } from './safe-url.js';

// `html: false` turns every tag in a reply (`<script>`, `<img onerror>`) into literal text; the
// token walk below is the second wall: only allow-listed tags and checked attributes come out.
// `breaks: true`: a single newline is a line break, as in SillyTavern (showdown's simpleLineBreaks).
const parser = new MarkdownIt('default', { html: false, linkify: false, typographer: false, breaks: true });

const ALLOWED = new Set<string>(MESSAGE_TAGS);
// Blocks whose inline content may hold dialogue.
const TEXT_BLOCKS = new Set<string>(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'th', 'td']);

interface Frame {
  /** Undefined for a token whose tag is dropped (its children join the parent). */
  readonly tag: MessageTag | undefined;
  readonly attrs: MdAttributes | undefined;
  readonly children: MdNode[];
}

/**
 * Renders a message's Markdown (CommonMark plus tables and strikethrough) to an allow-listed tree:
 * raw HTML stays visible text, links and images keep only http(s)/mailto URLs, no element carries
 * an event handler or a style, and dialogue (`"…"`, `“…”`, `「…」`, …) is wrapped in `q` elements;
 * `*actions*` are `em`, as SillyTavern shows them.
 * @param text - the message text
 * @returns the nodes to render, in order
 */
export function renderMarkdown(text: string): MdNode[] {
  return walk(parser.parse(text, {}));
}

function walk(tokens: readonly Token[]): MdNode[] {
  const root: Frame = { tag: undefined, attrs: undefined, children: [] };
  const stack: Frame[] = [root];
  const top = () => stack[stack.length - 1] as Frame;
  for (const token of tokens) {
    if (token.nesting === 1) {
      stack.push({ tag: token.hidden ? undefined : allowedTag(token.tag), attrs: attributes(token), children: [] });
    } else if (token.nesting === -1) {
      const frame = stack.length > 1 ? (stack.pop() as Frame) : root;
      top().children.push(...close(frame));
    } else {
      top().children.push(...leaf(token));
    }
  }
  // An unbalanced stream (never from markdown-it, but cheap to survive) closes what is open.
  while (stack.length > 1) {
    const frame = stack.pop() as Frame;
    top().children.push(...close(frame));
  }
  return root.children;
}

function close(frame: Frame): MdNode[] {
  if (frame.tag === undefined) return frame.children;
  const children = TEXT_BLOCKS.has(frame.tag) ? wrapDialogue(frame.children) : frame.children;
  const element: MdElement = frame.attrs ? { tag: frame.tag, attrs: frame.attrs, children } : { tag: frame.tag, children };
  return [element];
}

function leaf(token: Token): MdNode[] {
  switch (token.type) {
    case 'inline':
      return walk(token.children ?? []);
    case 'text':
    case 'text_special':
      return token.content === '' ? [] : [token.content];
    case 'softbreak':
    case 'hardbreak':
      return [{ tag: 'br', children: [] }];
    case 'code_inline':
      return [{ tag: 'code', children: [token.content] }];
    case 'fence':
    case 'code_block': {
      const language = token.info.trim().split(/\s+/)[0] ?? '';
      const code: MdElement = /^[\w+#-]{1,32}$/.test(language) ? { tag: 'code', attrs: { className: `language-${language}` }, children: [token.content] } : { tag: 'code', children: [token.content] };
      return [{ tag: 'pre', children: [code] }];
    }
    case 'hr':
      return [{ tag: 'hr', children: [] }];
    case 'image': {
      const src = safeUrl(attr(token, 'src'), 'image');
      const alt = token.children ? plainText(token.children) : token.content;
      // An image with an unsafe source shows its description instead.
      if (src === undefined) return alt === '' ? [] : [alt];
      const title = attr(token, 'title');
      return [{ tag: 'img', attrs: { src, alt, ...(title ? { title } : {}) }, children: [] }];
    }
    default:
      // html_inline / html_block never occur with `html: false`; anything unknown shows as text.
      return token.content === '' ? [] : [token.content];
  }
}

function allowedTag(tag: string): MessageTag | undefined {
  return ALLOWED.has(tag) ? (tag as MessageTag) : undefined;
}

function attributes(token: Token): MdAttributes | undefined {
  if (token.tag === 'a') {
    const href = safeUrl(attr(token, 'href'));
    const title = attr(token, 'title');
    if (href === undefined && !title) return undefined;
    return { ...(href !== undefined ? { href } : {}), ...(title ? { title } : {}) };
  }
  if (token.tag === 'ol') {
    const raw = attr(token, 'start');
    const start = Number(raw);
    return raw !== '' && Number.isInteger(start) && start !== 1 ? { start } : undefined;
  }
  if (token.tag === 'th' || token.tag === 'td') {
    // markdown-it writes alignment as a style; a class carries it instead (no style attribute ever).
    const align = /text-align:(left|center|right)/.exec(attr(token, 'style'))?.[1];
    return align ? { className: `align-${align}` } : undefined;
  }
  return undefined;
}

function attr(token: Token, name: string): string {
  const value = token.attrGet(name);
  return value === null ? '' : String(value);
}

function plainText(tokens: readonly Token[]): string {
  return tokens.map((token) => (token.children ? plainText(token.children) : token.content)).join('');
}

/**
 * The text a tree shows, without markup (for copy, previews and tests).
 * @param nodes - nodes from {@link renderMarkdown}
 * @returns their text content
 */
export function treeText(nodes: readonly MdNode[]): string {
  return nodes.map((node) => (typeof node === 'string' ? node : node.tag === 'br' ? '\n' : node.tag === 'img' ? (node.attrs?.alt ?? '') : treeText(node.children))).join('');
}
