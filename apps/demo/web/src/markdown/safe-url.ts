// Schemes a link or image in a reply may use. Everything else (javascript:, vbscript:, data:,
// file:, blob:, custom app schemes) is dropped, whatever its case, whitespace or entity tricks.
const SAFE_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

/**
 * A URL from a reply, if it is safe to put in `href`/`src`: http(s) and mailto URLs, and in-page
 * `#anchors`. Control characters and whitespace are stripped first (browsers ignore them inside a
 * scheme, which is how `java\tscript:` gets through naive filters).
 * @param url - the URL as the Markdown parser resolved it
 * @param kind - `link` allows mailto; `image` only http(s)
 * @returns the URL, or undefined when it must not be used
 */
export function safeUrl(url: string, kind: 'link' | 'image' = 'link'): string | undefined {
  const cleaned = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  if (cleaned === '') return undefined;
  if (kind === 'link' && cleaned.startsWith('#')) return cleaned;
  let parsed: URL;
  try {
    parsed = new URL(cleaned);
  } catch {
    return undefined; // relative URLs have no meaning inside a chat message
  }
  if (!SAFE_SCHEMES.has(parsed.protocol)) return undefined;
  if (kind === 'image' && parsed.protocol === 'mailto:') return undefined;
  return cleaned;
}
