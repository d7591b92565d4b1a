import { parseMacros } from '../syntax.js';

/**
 * Splits the raw content of a scoped `{{if}}` on its own `{{else}}`: the first one not inside a
 * nested scoped `{{if cond}}…{{/if}}` (inline `{{if::cond::then}}` does not nest).
 * @param content - raw (unresolved) content
 * @returns both branches (else undefined when absent) and where the else branch starts
 */
export function splitOnTopLevelElse(content: string): { thenBranch: string; elseBranch: string | undefined; elseOffset: number } {
  if (!/\{\{[\s#!?~>]*else/i.test(content)) return { thenBranch: content, elseBranch: undefined, elseOffset: 0 };
  let depth = 0;
  for (const part of parseMacros(content)) {
    if (part.kind !== 'macro' || part.comment) continue;
    if (part.key === 'if' && !part.closing && part.args.length === 1) depth++;
    else if (part.key === 'if' && part.closing) depth--;
    else if (part.key === 'else' && !part.closing && depth === 0) {
      return { thenBranch: content.slice(0, part.start), elseBranch: content.slice(part.end), elseOffset: part.end };
    }
  }
  return { thenBranch: content, elseBranch: undefined, elseOffset: 0 };
}
