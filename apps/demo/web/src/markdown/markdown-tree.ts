/**
 * The rendered form of a message: a small tree of allow-listed elements and plain strings. It is
 * framework-neutral (React turns it into elements in `MessageText.tsx`) and holds no HTML source,
 * so nothing a reply contains can become markup the renderer did not choose.
 */
export type MdNode = string | MdElement;

/** The elements a message may contain; anything else is never produced. */
export const MESSAGE_TAGS = [
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'em',
  'strong',
  's',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
  'a',
  'img',
  'hr',
  'br',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'q',
] as const;

/** One allow-listed tag. */
export type MessageTag = (typeof MESSAGE_TAGS)[number];

/**
 * The attributes an element may carry, already checked (URLs are http(s), mailto or in-page).
 * Names are React's (`className`), never an event handler or `style`.
 */
export interface MdAttributes {
  readonly href?: string;
  readonly src?: string;
  readonly alt?: string;
  readonly title?: string;
  readonly start?: number;
  readonly className?: string;
}

/** One element of the tree. */
export interface MdElement {
  readonly tag: MessageTag;
  readonly attrs?: MdAttributes;
  readonly children: readonly MdNode[];
}

/** Elements that never have children. */
export const VOID_TAGS: ReadonlySet<MessageTag> = new Set(['br', 'hr', 'img']);
