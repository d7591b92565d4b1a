import { createHash } from 'node:crypto';

// Library and workspace ids name folders, so they are `[a-z0-9][a-z0-9_-]{0,63}`. A name in any
// script gets one: its ASCII letters and digits when it has some, plus a short hash of the whole
// name when it has none (「爱」, 「呕吐内心的少女」) or when the ASCII part would be ambiguous.

const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

function slug(name: string): string {
  return name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
}

/**
 * An id for any display name: an ASCII slug (`Coding Sensei` → `coding-sensei`), or `c-` plus 8
 * hex digits of the name's SHA-256 when the name has no ASCII letters or digits (Chinese names),
 * then `-2`, `-3`, … until it is not in `taken`.
 * @param name - a character or persona name (any script)
 * @param taken - ids already in use
 * @param prefix - the prefix of a hashed id (default `c`)
 * @returns a free id matching `[a-z0-9][a-z0-9_-]{0,63}`
 */
export function deriveId(name: string, taken: ReadonlySet<string> = new Set(), prefix = 'c'): string {
  const ascii = slug(name);
  // A name that is mostly non-ASCII keeps a hash too, so 「莉娅 Lia」 and 「丽雅 Lia」 differ.
  const hasOtherScript = /[^\p{ASCII}]/u.test(name.normalize('NFKD').replace(/\p{M}/gu, ''));
  const hash = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 8);
  let base = ascii === '' ? `${prefix}-${hash}` : hasOtherScript ? `${ascii}-${hash}` : ascii;
  if (WINDOWS_DEVICE.test(base)) base = `${base}-${hash}`;
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
