// A deep copy of a value exactly as a JSON round trip (`JSON.parse(JSON.stringify(value))`) would
// return it, without writing or parsing any text. The session log's data is mostly a few long
// strings (stage prompts), which a JSON round trip escapes, copies and scans twice; a copy by
// walking the value visits each node once and copies each long string with one native copy.

// Past this depth the copy hands over to JSON, which also reports cycles.
const MAX_WALK_DEPTH = 64;
// V8 keeps a substring of this many characters or more as a view into its parent string.
const SLICED_STRING_MIN = 13;

/** Thrown inside the walk when a value needs JSON's own rules (toJSON, Date, Map, a class, bigint, a cycle …). */
const NEEDS_JSON = Symbol('needs-json');

/**
 * The value a JSON round trip of `value` returns, or `undefined` when JSON writes nothing for it
 * (`undefined`, a function or a symbol at the top). Long strings are copied, so the result never
 * keeps a larger string alive (a prompt cut from a whole `history.md` would otherwise hold it).
 * @param value - any value
 * @returns a fresh, unshared deep copy with JSON's semantics (dropped `undefined` members, `null`
 *   for non-finite numbers and array holes, `toJSON` applied, own enumerable keys in order)
 * @throws TypeError when `JSON.stringify` throws (a cycle, a bigint)
 */
export function jsonCopy(value: unknown): unknown {
  try {
    return walk(value, 0);
  } catch (error) {
    if (error !== NEEDS_JSON) throw error;
    const text = JSON.stringify(value);
    return text === undefined ? undefined : JSON.parse(text);
  }
}

function walk(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
      return value.length < SLICED_STRING_MIN ? value : ownString(value);
    case 'boolean':
      return value;
    case 'number':
      // JSON writes -0 as 0 and non-finite numbers as null.
      return Number.isFinite(value) ? value + 0 : null;
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'bigint':
      throw NEEDS_JSON;
  }
  if (value === null || value === undefined) return null;
  if (depth >= MAX_WALK_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') throw NEEDS_JSON;
  if (Array.isArray(value)) {
    const copy = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index++) {
      const item = walk(value[index], depth + 1);
      copy[index] = item === undefined ? null : item;
    }
    return copy;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  // Dates, boxed primitives, maps, class instances: JSON's rules for them are its own.
  if (proto !== Object.prototype && proto !== null) throw NEEDS_JSON;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = walk((value as Record<string, unknown>)[key], depth + 1);
    if (member !== undefined) setMember(copy, key, member);
  }
  return copy;
}

// An own member even for the key `__proto__` (as JSON.parse makes it), never a prototype change.
function setMember(target: Record<string, unknown>, key: string, member: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value: member, enumerable: true, writable: true, configurable: true });
  else target[key] = member;
}

// Concatenation makes a two-part string; `substring` flattens it into one new buffer first, so
// the result shares no memory with `text` (nor with a string `text` is a view into).
function ownString(text: string): string {
  return ` ${text}`.substring(1);
}
