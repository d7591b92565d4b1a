// Reading a model's answer: what a reasoning model thought aloud is not the answer, and JSON
// arrives wrapped in prose or code fences. One implementation for the director, the model
// adapters and the DIO service, so every reader agrees on what "the JSON in the answer" is.

const OPEN = /<think>/i;
const CLOSE = /<\/think>/i;
const BLOCKS = /<think>[\s\S]*?<\/think>/gi;

/**
 * The visible answer without a reasoning model's thinking: every `<think>…</think>` block is
 * removed; a `</think>` without an opening tag (chat templates that open the block themselves)
 * means everything before it was thinking; an unclosed `<think>` means the answer never left the
 * thinking, so nothing after it is visible.
 * @param text - the model's answer
 * @returns the visible answer, trimmed
 */
export function stripReasoning(text: string): string {
  const withoutBlocks = text.replace(BLOCKS, '');
  const close = withoutBlocks.search(CLOSE);
  const visible = close >= 0 ? withoutBlocks.slice(close + '</think>'.length) : withoutBlocks;
  const open = visible.search(OPEN);
  return (open >= 0 ? visible.slice(0, open) : visible).trim();
}

/** Options of {@link extractJson}. */
export interface ExtractJsonOptions {
  /** Accept a top-level array when no object parses (default true). */
  readonly arrays?: boolean;
}

/**
 * Finds the JSON in a model's answer and returns its text: the answer itself when it is a JSON
 * object (or array), else the first balanced `{…}` that parses — inside a Markdown code fence or
 * surrounded by prose ("Here is the result: {…} Hope this helps"). Brackets inside JSON strings
 * are skipped, so `{"a": "}"}` is one object; an opening brace that never closes or does not parse
 * is passed over. A top-level array is accepted when no object parses, unless `arrays: false`.
 * Reasoning is not removed here: call {@link stripReasoning} first.
 * @param text - the answer
 * @param options - whether arrays count
 * @returns the JSON text, or undefined when there is none
 */
export function extractJson(text: string, options: ExtractJsonOptions = {}): string | undefined {
  const arrays = options.arrays ?? true;
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if ((trimmed.startsWith('{') || (arrays && trimmed.startsWith('['))) && parses(trimmed)) return trimmed;
  return firstBalanced(text, '{', '}') ?? (arrays ? firstBalanced(text, '[', ']') : undefined);
}

function firstBalanced(text: string, open: string, close: string): string | undefined {
  for (let start = text.indexOf(open); start >= 0; start = text.indexOf(open, start + 1)) {
    const end = balancedEnd(text, start, open, close);
    if (end === undefined) continue;
    const candidate = text.slice(start, end + 1);
    if (parses(candidate)) return candidate;
  }
  return undefined;
}

/** Index of the bracket that closes the one at `start`, or undefined when it never closes. */
function balancedEnd(text: string, start: number, open: string, close: string): number | undefined {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === open) depth++;
    else if (char === close && --depth === 0) return index;
  }
  return undefined;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
