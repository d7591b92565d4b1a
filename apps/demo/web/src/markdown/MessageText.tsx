import { createElement, type ReactNode, useMemo } from 'react';
import { type MdNode, VOID_TAGS } from './markdown-tree.js';
import { renderMarkdown } from './render-markdown.js';

interface Props {
  /** The message's Markdown (a reply or the player's line). */
  readonly text: string;
}

/**
 * A chat message's text rendered as sanitised Markdown (see `renderMarkdown`): headings, lists,
 * `*actions*` in italics and dialogue highlighted, as SillyTavern shows them. Built from a tree of
 * allow-listed elements with React, so no HTML string is ever inserted into the page.
 */
export function MessageText({ text }: Props) {
  const nodes = useMemo(() => renderMarkdown(text), [text]);
  return (
    <div className="message-text" data-testid="message-text">
      {toReact(nodes)}
    </div>
  );
}

function toReact(nodes: readonly MdNode[]): ReactNode[] {
  return nodes.map((node, index) => {
    if (typeof node === 'string') return node;
    const props: Record<string, unknown> = { key: index, ...node.attrs };
    if (node.tag === 'a' && node.attrs?.href !== undefined && !node.attrs.href.startsWith('#')) {
      // A link out of a reply never gets the page as its opener nor a referrer.
      props.target = '_blank';
      props.rel = 'noopener noreferrer nofollow';
    }
    if (node.tag === 'img') {
      props.referrerPolicy = 'no-referrer';
      props.loading = 'lazy';
    }
    return VOID_TAGS.has(node.tag) ? createElement(node.tag, props) : createElement(node.tag, props, ...toReact(node.children));
  });
}
