/**
 * Finds the first balanced JSON object in a model's answer and returns its text: the answer
 * itself when it is JSON, else the first `{…}` that parses — inside a Markdown code fence or
 * surrounded by prose ("Here is the result: {…} Hope this helps"). Braces inside JSON strings
 * are skipped, so `{"a": "}"}` is one object. A top-level array is accepted when no object parses.
 * @param text - the answer (reasoning already removed)
 * @returns the JSON text, or undefined when there is none
 */
export function extractJson(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (parses(trimmed) && (trimmed.startsWith('{') || trimmed.startsWith('['))) return trimmed;
  return firstBalanced(text, '{', '}') ?? firstBalanced(text, '[', ']');
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
    else if (char === close) {
      depth--;
      if (depth === 0) return index;
    }
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
