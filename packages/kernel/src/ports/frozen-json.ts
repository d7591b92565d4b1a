// A JSON value that many session events carry unchanged (a stage's JSON Schema in every logged
// stage request) is written once: its text is kept beside the frozen value, and an event whose
// data holds it as a member gets that text spliced in instead of serialising it again.

// Keyed by the frozen value itself: the text lives as long as the value does.
const texts = new WeakMap<object, string>();
// Whether any value was ever frozen here: until then event serialisation skips the member scan.
let anyFrozen = false;

/**
 * A deep-frozen copy of a JSON value that many session events will carry unchanged (the JSON
 * Schema a stage sends with every call), with its JSON text computed now, once. Session events
 * whose `data` object holds the returned value as a member (`{ ..., json: frozen }`) serialise it
 * by splicing in that text: the stored JSON is byte-for-byte what `JSON.stringify` writes, made
 * without walking the value again. The copy is the value's JSON round trip, so it is plain JSON
 * (no getters, `toJSON`, dates or class instances) and being frozen, can never drift from its text.
 * @param value - any JSON-serialisable object or array
 * @returns the frozen copy (use it wherever the value is used, so events carry this very object)
 * @throws TypeError when `value` is not JSON-serialisable or its JSON is not an object or array
 */
export function freezeJson<T extends object>(value: T): T {
  if (texts.has(value)) return value;
  const text = JSON.stringify(value) as string | undefined;
  const copy: unknown = text === undefined ? undefined : JSON.parse(text);
  if (typeof copy !== 'object' || copy === null) throw new TypeError('freezeJson takes a value whose JSON is an object or an array');
  deepFreeze(copy);
  texts.set(copy, text as string);
  anyFrozen = true;
  return copy as T;
}

/**
 * The JSON text of a value made by {@link freezeJson}, or `undefined` for any other value.
 * @param value - a member of an event's data
 */
export function frozenJsonText(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? texts.get(value) : undefined;
}

/** Whether {@link freezeJson} was ever called in this process (if not, no data can hold frozen text). */
export function hasFrozenJson(): boolean {
  return anyFrozen;
}

// A JSON.parse result: plain objects and arrays only, no cycles.
function deepFreeze(value: object): void {
  for (const member of Object.values(value)) if (typeof member === 'object' && member !== null) deepFreeze(member);
  Object.freeze(value);
}
