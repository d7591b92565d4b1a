// SillyTavern's variable arithmetic: `addvar` adds numbers, appends to JSON arrays and otherwise
// concatenates; `incvar`/`decvar` count from 0.

function isNumeric(value: string): boolean {
  return value.trim() !== '' && !Number.isNaN(Number(value));
}

/**
 * `addvar`: numeric sum when both sides are numbers, push onto a JSON array, else append.
 * @param store - the variables
 * @param name - variable name
 * @param value - what to add
 */
export function addVariable(store: Map<string, string>, name: string, value: string): void {
  const current = store.get(name) ?? '';
  if (current.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(current);
      if (Array.isArray(parsed)) {
        parsed.push(value);
        store.set(name, JSON.stringify(parsed));
        return;
      }
    } catch {
      // Not JSON: treated as text below.
    }
  }
  const base = current === '' ? '0' : current;
  if (isNumeric(base) && (value.trim() === '' || isNumeric(value))) {
    store.set(name, String(Number(base) + Number(value)));
    return;
  }
  store.set(name, current + value);
}

/**
 * `-=`: numeric subtraction; a non-numeric side leaves the variable unchanged.
 * @param store - the variables
 * @param name - variable name
 * @param value - what to subtract
 */
export function subtractVariable(store: Map<string, string>, name: string, value: string): void {
  const current = store.get(name) ?? '0';
  if (!isNumeric(value) || !isNumeric(current === '' ? '0' : current)) return;
  store.set(name, String(Number(current === '' ? '0' : current) - Number(value)));
}

/**
 * `incvar`/`decvar`: adds `delta` (a missing or empty variable counts as 0).
 * @param store - the variables
 * @param name - variable name
 * @param delta - +1 or -1
 * @returns the new value
 */
export function stepVariable(store: Map<string, string>, name: string, delta: number): string {
  const current = store.get(name) ?? '';
  const next = String(Number(current === '' ? '0' : current) + delta);
  store.set(name, next);
  return next;
}

/**
 * Truthiness of a variable for `||` and `{{if .name}}`: empty, `0`, `false` and `off` are false.
 * @param value - the value (undefined when unset)
 * @returns whether it is truthy
 */
export function isTruthyValue(value: string | undefined): boolean {
  if (value === undefined) return false;
  const bare = value.trim().toLowerCase();
  return bare !== '' && bare !== '0' && bare !== 'false' && bare !== 'off';
}
