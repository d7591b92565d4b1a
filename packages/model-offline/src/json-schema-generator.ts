import { hashText } from './hash.js';
import type { MessageFacts } from './message-facts.js';
import { snippet, stripEndPunctuation } from './text.js';

type Schema = Readonly<Record<string, unknown>>;

/** Where the generator draws its strings from. */
export interface GeneratorSource {
  readonly facts: MessageFacts;
  /** The stage name, used to vary choices between stages deterministically. */
  readonly stage: string;
  /**
   * Preferred content, shaped like the expected value (strings, arrays, objects). Where a hint
   * fits the schema at that spot it is used (still clipped to length and item limits); anything
   * missing or not fitting is generated as usual, so the result always conforms.
   */
  readonly hint?: unknown;
}

interface Walk {
  readonly root: Schema;
  readonly source: GeneratorSource;
  readonly depth: number;
}

const MAX_DEPTH = 12;

/**
 * Builds a value that conforms to a JSON Schema (the subset structured stages use): objects with
 * properties/required, arrays (1–3 items within minItems/maxItems, tuples via prefixItems),
 * strings (enum, const, minLength, maxLength, common formats), numbers and integers (bounds,
 * multipleOf), booleans, null, local `$ref`s, allOf (merged), anyOf/oneOf (first non-null branch)
 * and nullable. Strings are drawn from the request (the player's input, names found), so the
 * output visibly reflects its inputs. Deterministic: same schema and source → same value.
 * @param schema - a JSON Schema object (e.g. from `z.toJSONSchema`)
 * @param source - the facts and stage to draw content from
 * @returns a JSON-serialisable value
 */
export function generateFromSchema(schema: Schema, source: GeneratorSource): unknown {
  return generate(schema, 'value', 0, { root: schema, source, depth: 0 }, source.hint);
}

function generate(schema: Schema, key: string, index: number, walk: Walk, hint?: unknown): unknown {
  if (walk.depth > MAX_DEPTH) return null;
  const next: Walk = { ...walk, depth: walk.depth + 1 };
  if (typeof schema.$ref === 'string') return generate(resolveRef(schema.$ref, walk.root), key, index, next, hint);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    return schema.enum.includes(hint) ? hint : pick(schema.enum, key, index, walk);
  }
  if (Array.isArray(schema.allOf)) return generate(mergeAll(schema, schema.allOf as Schema[]), key, index, next, hint);
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(branches) && branches.length > 0) {
    const branch = branches.find((candidate) => candidate.type !== 'null') ?? branches[0]!;
    return generate({ ...withoutKeys(schema, ['anyOf', 'oneOf']), ...branch }, key, index, next, hint);
  }
  switch (primaryType(schema)) {
    case 'object':
      return generateObject(schema, next, isRecord(hint) ? hint : undefined);
    case 'array':
      return generateArray(schema, key, next, Array.isArray(hint) ? hint : undefined);
    case 'string':
      return typeof hint === 'string' && schema.format === undefined
        ? fitLength(hint, schema.minLength, schema.maxLength, walk.source.facts.chinese)
        : generateString(schema, key, index, walk);
    case 'integer':
      return generateNumber(schema, true, key, index, walk);
    case 'number':
      return generateNumber(schema, false, key, index, walk);
    case 'boolean':
      return hashText(`${walk.source.stage}/${key}/${index}`) % 2 === 0;
    case 'null':
      return null;
    default:
      return generateString(schema, key, index, walk);
  }
}

function primaryType(schema: Schema): string | undefined {
  const type = schema.type;
  if (Array.isArray(type)) return (type.find((candidate) => candidate !== 'null') ?? type[0]) as string | undefined;
  if (typeof type === 'string') return type;
  if (schema.properties) return 'object';
  if (schema.items || schema.prefixItems) return 'array';
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function generateObject(schema: Schema, walk: Walk, hint?: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const result: Record<string, unknown> = {};
  // Every declared property is filled (optional ones too) so downstream stages get rich input;
  // deep inside recursive schemas only required ones, so the value stays finite.
  const shallow = walk.depth <= MAX_DEPTH / 2;
  for (const [name, property] of Object.entries(properties)) {
    if (shallow || required.includes(name)) result[name] = generate(property, name, 0, walk, hint?.[name]);
  }
  for (const name of required) if (!(name in result)) result[name] = generateString({}, name, 0, walk);
  return result;
}

function generateArray(schema: Schema, key: string, walk: Walk, hint?: readonly unknown[]): unknown[] {
  const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]) : [];
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY;
  const items = schema.items && typeof schema.items === 'object' ? (schema.items as Schema) : undefined;
  // Deep inside recursive schemas arrays shrink to their minimum so the value stays finite.
  const preferred =
    prefix.length > 0 && !items
      ? prefix.length
      : hint !== undefined
        ? hint.length
        : walk.depth > MAX_DEPTH / 2
          ? 0
          : 1 + (hashText(`${walk.source.stage}/${key}`) % 3);
  const count = Math.min(Math.max(preferred, minItems, prefix.length > 0 && !items ? prefix.length : 0), maxItems);
  const values: unknown[] = [];
  for (let index = 0; index < count; index++) {
    const itemSchema = prefix[index] ?? items ?? {};
    values.push(generate(itemSchema, singular(key), index, walk, hint?.[index]));
  }
  return values;
}

function generateString(schema: Schema, key: string, index: number, walk: Walk): string {
  const text = formatted(schema.format, key, index, walk) ?? contentFor(key, index, walk.source);
  return fitLength(text, schema.minLength, schema.maxLength, walk.source.facts.chinese);
}

function generateNumber(schema: Schema, integer: boolean, key: string, index: number, walk: Walk): number {
  let low = typeof schema.minimum === 'number' ? schema.minimum : Number.NEGATIVE_INFINITY;
  let high = typeof schema.maximum === 'number' ? schema.maximum : Number.POSITIVE_INFINITY;
  const step = integer ? 1 : 0.5;
  if (typeof schema.exclusiveMinimum === 'number') low = Math.max(low, schema.exclusiveMinimum + (integer ? 1 : 1e-6));
  if (typeof schema.exclusiveMaximum === 'number') high = Math.min(high, schema.exclusiveMaximum - (integer ? 1 : 1e-6));
  if (integer) {
    low = Math.ceil(low);
    high = Math.floor(high);
  }
  // A small, stable candidate (1–5) clamped into range reads naturally for scores and counts.
  let value = 1 + (hashText(`${walk.source.stage}/${key}/${index}`) % 5) * step * (integer ? 1 : 2);
  if (value < low) value = low;
  if (value > high) value = Number.isFinite(low) ? (integer ? low : (low + high) / 2) : high;
  const multipleOf = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : undefined;
  if (multipleOf !== undefined) {
    const up = Math.ceil(value / multipleOf) * multipleOf;
    const down = Math.floor(value / multipleOf) * multipleOf;
    value = up <= high ? up : down;
  }
  return value;
}

function contentFor(key: string, index: number, source: GeneratorSource): string {
  const { facts } = source;
  const zh = facts.chinese;
  const input = stripEndPunctuation(snippet(facts.lastUserText, 60)) || (zh ? '故事继续' : 'the story continues');
  const names = facts.names.length > 0 ? facts.names : [facts.characterName ?? (zh ? '旁白' : 'Narrator')];
  const name = names[index % names.length]!;
  const lowered = key.toLowerCase();
  const suffix = index > 0 ? (zh ? `（${index + 1}）` : ` (${index + 1})`) : '';
  if (/name|character|speaker|who|actor/.test(lowered)) return `${name}${suffix}`;
  if (/title|heading|label/.test(lowered)) return zh ? `${name}：${snippet(input, 16)}${suffix}` : `${name}: ${snippet(input, 30)}${suffix}`;
  if (/id$|slug|key/.test(lowered)) return `${slug(key)}-${index + 1}`;
  if (/summary|description|content|text|prose|reason|note|detail|goal|plan|beat|fact|issue|finding|query|question|motivation|mood|setting/.test(lowered)) {
    return zh ? `${name}回应「${input}」${suffix}。` : `${name} responds to "${input}"${suffix}.`;
  }
  return zh ? `${key}：${name}与「${snippet(input, 20)}」${suffix}` : `${key}: ${name} and "${snippet(input, 40)}"${suffix}`;
}

function formatted(format: unknown, key: string, index: number, walk: Walk): string | undefined {
  const hex = hashText(`${walk.source.stage}/${key}/${index}`).toString(16).padStart(8, '0');
  switch (format) {
    case 'date-time':
      return '2026-01-01T00:00:00.000Z';
    case 'date':
      return '2026-01-01';
    case 'time':
      return '00:00:00';
    case 'email':
      return `offline.${index + 1}@example.com`;
    case 'uri':
    case 'url':
      return `https://example.com/offline/${hex}`;
    case 'uuid':
      return `${hex}-0000-4000-8000-${hex}0000`;
    default:
      return undefined;
  }
}

/** Pads (code points) up to `min` and cuts (UTF-16 units, so every validator agrees) to `max`. */
function fitLength(text: string, min: unknown, max: unknown, chinese: boolean): string {
  let result = text;
  if (typeof min === 'number') {
    const filler = chinese ? '……' : ' …';
    while (Array.from(result).length < min) result += filler;
  }
  if (typeof max === 'number') {
    const points = Array.from(result);
    while (points.join('').length > max) points.pop();
    result = points.join('');
  }
  return result;
}

function pick(options: readonly unknown[], key: string, index: number, walk: Walk): unknown {
  return options[(hashText(`${walk.source.stage}/${key}`) + index) % options.length];
}

function resolveRef(ref: string, root: Schema): Schema {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return {};
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    const segment = part.replace(/~1/g, '/').replace(/~0/g, '~');
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[segment] : undefined;
  }
  return node && typeof node === 'object' ? (node as Schema) : {};
}

function mergeAll(schema: Schema, parts: readonly Schema[]): Schema {
  const merged: Record<string, unknown> = { ...withoutKeys(schema, ['allOf']) };
  for (const part of parts) {
    for (const [name, value] of Object.entries(part)) {
      if (name === 'properties') merged.properties = { ...(merged.properties as object), ...(value as object) };
      else if (name === 'required') merged.required = [...((merged.required as string[]) ?? []), ...(value as string[])];
      else merged[name] = value;
    }
  }
  return merged;
}

function withoutKeys(schema: Schema, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schema).filter(([name]) => !keys.includes(name)));
}

function singular(key: string): string {
  return key.endsWith('s') && key.length > 1 ? key.slice(0, -1) : key;
}

function slug(key: string): string {
  return key.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase() || 'item';
}
