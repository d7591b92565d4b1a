const REGEX_KEY = /^\/([\w\W]+?)\/([gimsuy]*)$/;
const cache = new Map<string, RegExp | null>();
const CACHE_LIMIT = 4096;

/**
 * Parses a `/pattern/flags` key the way SillyTavern does: the delimiters must be escaped inside
 * the pattern (`\/`), the flags are the ones ST reads (`gimsuy`; a key with another flag, such as
 * `v` or `d`, is plain text). Invalid patterns are plain text, not errors (ST treats them as
 * keywords too). `g` is dropped: ST builds a fresh regex per test, so it changes nothing there,
 * while on a cached regex its `lastIndex` would make the same key match on one scan and miss on the
 * next. `y` is kept, as in ST (the scan text starts with ST's `\x01` message marker, see
 * `ScanBuffer`); the caller resets `lastIndex` before each test.
 * @param key - a key as written in the entry
 * @returns the regex, or null when the key is plain text
 */
export function parseRegexKey(key: string): RegExp | null {
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const regex = compile(key);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, regex);
  return regex;
}

function compile(key: string): RegExp | null {
  const match = REGEX_KEY.exec(key);
  if (!match) return null;
  const pattern = match[1] ?? '';
  // An unescaped delimiter inside means this is not one regex (e.g. "/a/b/").
  if (/(^|[^\\])\//.test(pattern)) return null;
  try {
    return new RegExp(pattern.replaceAll('\\/', '/'), (match[2] ?? '').replace('g', ''));
  } catch {
    return null;
  }
}
