// What SillyTavern forgives on import, forgiven here too — but only where nothing is lost: a V1
// card is upgraded (its flat fields move into `data`, the originals stay at the top level), a
// `null` optional field means "absent", and a numeric `spec_version` is read as its text.

/** The card after the lenient fixes, and what was fixed (for an importer's notes). */
export interface LenientCard {
  readonly value: unknown;
  /** One sentence per fix, e.g. `V1 card upgraded to V2`, `data.creator_notes was null`. */
  readonly notes: readonly string[];
}

/** The flat fields of a TavernAI V1 card, in the order the V2 spec lists them. */
export const V1_FIELDS = ['name', 'description', 'personality', 'scenario', 'first_mes', 'mes_example'] as const;
// Fields whose `null` is not "absent": a card without a name cannot be played.
const REQUIRED_DATA_FIELDS: ReadonlySet<string> = new Set(['name']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether a value looks like a V1 (TavernAI) card: no `spec`, a string `name` and at least one
 * other V1 text field at the top level.
 * @param value - parsed JSON
 * @returns true for a V1 card
 */
export function isV1Card(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value) || 'spec' in value || typeof value.name !== 'string') return false;
  return V1_FIELDS.some((field) => field !== 'name' && typeof value[field] === 'string');
}

function upgradeV1(card: Record<string, unknown>, notes: string[]): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const field of V1_FIELDS) {
    const value = card[field];
    if (typeof value === 'string') data[field] = value;
  }
  notes.push('V1 card upgraded to V2 (its original fields are kept as they were)');
  // The V1 fields stay at the top level too, so an export carries everything the file had.
  return { ...card, spec: 'chara_card_v2', spec_version: '2.0', data };
}

function specVersionText(card: Record<string, unknown>, notes: string[]): Record<string, unknown> {
  const version = card.spec_version;
  if (typeof version !== 'number' || !Number.isFinite(version)) return card;
  const text = Number.isInteger(version) ? version.toFixed(1) : String(version);
  notes.push(`spec_version was the number ${version}; read as "${text}"`);
  return { ...card, spec_version: text };
}

function dropNullFields(card: Record<string, unknown>, notes: string[]): Record<string, unknown> {
  const data = card.data;
  if (!isRecord(data)) return card;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (value === null && !REQUIRED_DATA_FIELDS.has(key)) {
      notes.push(`data.${key} was null; read as absent`);
      continue;
    }
    kept[key] = value;
  }
  return { ...card, data: kept };
}

/**
 * Applies SillyTavern's lossless import leniencies to parsed card JSON. Anything else (a missing
 * name, a wrong type) is left for the schema to report with the field's path.
 * @param value - parsed card JSON (untrusted)
 * @returns the value to validate and the notes
 */
export function applyCardLeniency(value: unknown): LenientCard {
  const notes: string[] = [];
  if (!isRecord(value)) return { value, notes };
  let card = isV1Card(value) ? upgradeV1(value, notes) : value;
  card = specVersionText(card, notes);
  card = dropNullFields(card, notes);
  return { value: card, notes };
}
