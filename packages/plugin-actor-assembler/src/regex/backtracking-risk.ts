// A quick, conservative look at a pattern for the shapes that backtrack catastrophically: a
// quantified group that itself contains a quantifier or an alternation (`(a+)+`, `(a|a)*`,
// `(.*x){20}`) and backreferences. Patterns without them run natively; risky ones run under a
// time budget (see guarded-run.ts). False alarms only cost speed, never correctness.

function isRepeatingQuantifierAt(source: string, index: number): boolean {
  const char = source[index];
  if (char === '*' || char === '+') return true;
  if (char === '{') {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(index, index + 24));
    if (match === null) return false;
    return match[2] !== undefined ? match[3] === '' || Number(match[3]) > 1 : Number(match[1]) > 1;
  }
  return false;
}

/**
 * Whether a regex source may backtrack catastrophically (conservative: when unsure, true).
 * @param source - the pattern (without slashes and flags)
 * @returns true for nested quantifiers, quantified alternations, backreferences
 */
export function mayBacktrackCatastrophically(source: string): boolean {
  // Per open group: does it contain a quantifier or an alternation?
  const groups: { risky: boolean }[] = [];
  let inClass = false;
  for (let index = 0; index < source.length; index++) {
    const char = source[index];
    if (char === '\\') {
      const next = source[index + 1] ?? '';
      if (/[1-9k]/.test(next)) return true; // backreference
      index++;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      else continue;
    } else if (char === '[') {
      inClass = true;
      continue;
    }
    if (char === '(') {
      groups.push({ risky: false });
      continue;
    }
    if (char === '|') {
      const top = groups[groups.length - 1];
      if (top !== undefined) top.risky = true;
      continue;
    }
    if (char === ')') {
      const group = groups.pop();
      const quantified = isRepeatingQuantifierAt(source, index + 1);
      if (group?.risky === true && quantified) return true;
      // A group that is itself quantified makes its parent contain a quantifier.
      const parent = groups[groups.length - 1];
      if (parent !== undefined && (quantified || group?.risky === true)) parent.risky = true;
      continue;
    }
    if (isRepeatingQuantifierAt(source, index)) {
      const top = groups[groups.length - 1];
      if (top !== undefined) top.risky = true;
    }
  }
  return false;
}
