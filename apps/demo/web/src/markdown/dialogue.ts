import type { MdElement, MdNode } from './markdown-tree.js';

/**
 * The quote pairs SillyTavern highlights as dialogue (its `messageFormatting`): straight and curly
 * double quotes, guillemets, Japanese/Chinese corner brackets and the full-width quote.
 */
export const DIALOGUE_QUOTES: ReadonlyMap<string, string> = new Map([
  ['"', '"'],
  ['\u201c', '\u201d'], // “…”
  ['\u00ab', '\u00bb'], // «…»
  ['\u300c', '\u300d'], // 「…」
  ['\u300e', '\u300f'], // 『…』
  ['\uff02', '\uff02'], // ＂…＂
]);

// Inside these, quotes are literal text (code), or they already are a quote.
const OPAQUE = new Set(['code', 'pre', 'q']);

function firstOpener(text: string): number {
  for (let index = 0; index < text.length; index++) if (DIALOGUE_QUOTES.has(text[index] as string)) return index;
  return -1;
}

/**
 * Wraps dialogue in `q` elements, as SillyTavern does: from an opening quote to its closing quote
 * on the same line, the quote marks kept inside. A quote may span emphasis (`"Go *now*," she
 * said`), never a line break or a code span; an opening quote that is never closed stays plain text.
 * @param nodes - the inline children of one block (paragraph, heading, list item, cell)
 * @returns the same content with dialogue wrapped
 */
export function wrapDialogue(nodes: readonly MdNode[]): MdNode[] {
  const out: MdNode[] = [];
  let open: { close: string; buffer: MdNode[] } | null = null;
  const abandon = () => {
    // Never closed: the quote mark is ordinary text, and what followed it is scanned again (it
    // may hold a complete quote of another kind).
    if (open) out.push(open.buffer[0] as string, ...wrapDialogue(open.buffer.slice(1)));
    open = null;
  };
  for (const node of nodes) {
    if (typeof node !== 'string') {
      if (node.tag === 'br') abandon();
      if (open) open.buffer.push(node);
      else out.push(OPAQUE.has(node.tag) ? node : { ...node, children: wrapDialogue(node.children) });
      continue;
    }
    let rest = node;
    while (rest !== '') {
      if (open) {
        const end = rest.indexOf(open.close);
        if (end < 0) {
          open.buffer.push(rest);
          break;
        }
        open.buffer.push(rest.slice(0, end + 1));
        out.push(quote(open.buffer));
        open = null;
        rest = rest.slice(end + 1);
        continue;
      }
      const start = firstOpener(rest);
      if (start < 0) {
        out.push(rest);
        break;
      }
      if (start > 0) out.push(rest.slice(0, start));
      open = { close: DIALOGUE_QUOTES.get(rest[start] as string) as string, buffer: [rest[start] as string] };
      rest = rest.slice(start + 1);
    }
  }
  abandon();
  return mergeStrings(out);
}

function quote(children: readonly MdNode[]): MdElement {
  return { tag: 'q', attrs: { className: 'dialogue' }, children: mergeStrings(children) };
}

/** Adjacent strings joined, so the tree stays as small as the text it shows. */
function mergeStrings(nodes: readonly MdNode[]): MdNode[] {
  const out: MdNode[] = [];
  for (const node of nodes) {
    const last = out[out.length - 1];
    if (typeof node === 'string' && typeof last === 'string') out[out.length - 1] = last + node;
    else if (node !== '') out.push(node);
  }
  return out;
}
