// A quick yes to "does this parsed JSON answer already fit the stage's schema unchanged?". A
// structured stage answer is validated on the path from a model answer to the next request, and
// zod's parse of even a small object (a fresh output object, a context per check) costs more
// than JSON.parse of the answer. Stage schemas are plain objects, arrays and strings with length
// limits: for exactly those this builds a direct check, and when it says yes the parsed value is
// what zod would return (same keys, same order, nothing stripped), so it is used as is. Anything
// else — another schema feature, an extra or reordered key, a value that does not fit — goes to
// zod, which stays the one source of the answer and of every error message.
import type * as z from 'zod';

/** True only when `value` passes the schema and zod's output would equal it. */
export type PlainCheck = (value: unknown) => boolean;

// Schema → its check, or null when the schema uses anything the check does not model.
const checks = new WeakMap<z.ZodType, PlainCheck | null>();

/**
 * The direct check of a schema made only of objects (zod's default: unknown keys stripped),
 * arrays and strings, with at most `min`/`max` length checks; `undefined` for any other schema.
 * @param schema - a stage's answer schema
 * @returns the check, built once per schema
 */
export function plainCheckOf(schema: z.ZodType): PlainCheck | undefined {
  let check = checks.get(schema);
  if (check === undefined) {
    check = build(schema) ?? null;
    checks.set(schema, check);
  }
  return check ?? undefined;
}

interface Def {
  readonly type?: unknown;
  readonly checks?: readonly { readonly _zod?: { readonly def?: Record<string, unknown> } }[];
  readonly [key: string]: unknown;
}

// The def keys each supported type may have; any other key (coerce, a catchall, …) means zod
// could return something else than the input.
const ALLOWED: Readonly<Record<string, ReadonlySet<string>>> = {
  string: new Set(['type', 'checks']),
  array: new Set(['type', 'element', 'checks']),
  object: new Set(['type', 'shape', 'checks']),
};
// Check keys that only matter when a value fails (then zod runs anyway).
const CHECK_KEYS = new Set(['check', 'minimum', 'maximum', 'when', 'abort', 'error']);

function build(schema: z.ZodType): PlainCheck | undefined {
  const def = (schema as unknown as { _zod?: { def?: Def } })._zod?.def;
  if (!def || typeof def.type !== 'string') return undefined;
  const allowed = ALLOWED[def.type];
  if (!allowed || Object.keys(def).some((key) => !allowed.has(key) && def[key] !== undefined)) return undefined;
  const limits = lengthLimits(def);
  if (!limits) return undefined;
  const [min, max] = limits;
  switch (def.type) {
    case 'string':
      return (value) => typeof value === 'string' && value.length >= min && value.length <= max;
    case 'array': {
      const element = build(def.element as z.ZodType);
      if (!element) return undefined;
      return (value) => {
        if (!Array.isArray(value) || value.length < min || value.length > max) return false;
        for (const item of value) if (!element(item)) return false;
        return true;
      };
    }
    case 'object': {
      // Length checks on an object are not zod's; only none is plain.
      if (min !== 0 || max !== Infinity) return undefined;
      const shape = def.shape as Record<string, z.ZodType>;
      const keys = Object.keys(shape);
      const fields: PlainCheck[] = [];
      for (const key of keys) {
        const field = build(shape[key] as z.ZodType);
        if (!field) return undefined;
        fields.push(field);
      }
      return (value) => {
        if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
        // Exactly the shape's keys in the shape's order: then zod's stripped copy equals the value.
        let index = 0;
        for (const key in value) {
          if (key !== keys[index] || !(fields[index] as PlainCheck)((value as Record<string, unknown>)[key])) return false;
          index++;
        }
        return index === keys.length;
      };
    }
    default:
      return undefined;
  }
}

// [min, max] of the def's length checks, or undefined when it has any other check.
function lengthLimits(def: Def): [number, number] | undefined {
  let min = 0;
  let max = Infinity;
  for (const check of def.checks ?? []) {
    const checkDef = check._zod?.def;
    if (!checkDef || Object.keys(checkDef).some((key) => !CHECK_KEYS.has(key))) return undefined;
    if (checkDef.check === 'min_length' && typeof checkDef.minimum === 'number') min = Math.max(min, checkDef.minimum);
    else if (checkDef.check === 'max_length' && typeof checkDef.maximum === 'number') max = Math.min(max, checkDef.maximum);
    else return undefined;
  }
  return [min, max];
}
