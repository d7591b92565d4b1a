// The message tools' icons as inline SVG: they draw the same everywhere, with no icon font or
// emoji font needed (the demo works offline, and many systems lack a glyph like 🗑).
// Decorative: every button that shows one carries its own aria-label.

import type { ReactNode } from 'react';

function Icon({ children }: { readonly children: ReactNode }) {
  return (
    <svg width="16" height="16" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      {children}
    </svg>
  );
}

/** Two overlapping sheets: copy. */
export function CopyIcon() {
  return (
    <Icon>
      <rect x="5.5" y="5.5" width="8" height="8" rx="1.5" />
      <path d="M10.5 3.5v-0.5a1.5 1.5 0 0 0-1.5-1.5H4A1.5 1.5 0 0 0 2.5 3v5A1.5 1.5 0 0 0 4 9.5h0.5" />
    </Icon>
  );
}

/** A pencil: edit. */
export function EditIcon() {
  return (
    <Icon>
      <path d="M10.5 2.5l3 3L6 13H3v-3z" />
      <path d="M9 4l3 3" />
    </Icon>
  );
}

/** A bin: delete. */
export function DeleteIcon() {
  return (
    <Icon>
      <path d="M2.5 4h11M6.5 4V2.5h3V4M4 4l0.75 9.5h6.5L12 4M6.75 6.5v4.5M9.25 6.5v4.5" />
    </Icon>
  );
}

/** A circular arrow: regenerate. */
export function RegenerateIcon() {
  return (
    <Icon>
      <path d="M13 8a5 5 0 1 1-1.5-3.55" />
      <path d="M13 2.5v2.5h-2.5" />
    </Icon>
  );
}

/** A path forking in two: branch a new chat from here. */
export function BranchIcon() {
  return (
    <Icon>
      <circle cx="4.5" cy="3.5" r="1.5" />
      <circle cx="4.5" cy="12.5" r="1.5" />
      <circle cx="11.5" cy="5.5" r="1.5" />
      <path d="M4.5 5v6M11.5 7c0 2.5-2 3.5-5.5 4.5" />
    </Icon>
  );
}
