const REGEX_KEY = /^\/([\w\W]+?)\/([gimsuyvd]*)$/;
const cache = new Map<string, RegExp | null>();
const CACHE_LIMIT = 4096;

/**
 * Parses a `/pattern/flags` key the way SillyTavern does: the delimiters must be escaped inside
 * the pattern (`\/`), flags are JavaScript's. Invalid patterns are plain text, not errors (ST
 * treats them as keywords too). `g` and `y` are dropped: a key is a yes/no test, and a stateful
 * `lastIndex` would make the same key match on one scan and miss on the next.
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
    return new RegExp(pattern.replaceAll('\\/', '/'), (match[2] ?? '').replace(/[gy]/g, ''));
  } catch {
    return null;
  }
}
