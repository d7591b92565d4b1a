import { compileFindRegex, escapeRegexText } from './compile.js';
import { mayBacktrackCatastrophically } from './backtracking-risk.js';
import { DEFAULT_REGEX_BUDGET_MS, RegexBudgetExceeded, replaceWithBudget } from './guarded-run.js';
import { REGEX_PLACEMENTS, type RegexPlacement, type RegexScript } from './regex-script.js';

/** One text a regex pass may change. */
export interface RegexTarget {
  readonly text: string;
  /** Undefined: no script applies (a system message, say). */
  readonly placement: RegexPlacement | undefined;
  /** Messages from the end of the chat (0 = the newest); undefined for texts outside the chat. */
  readonly depth?: number;
}

/** How a regex pass runs. */
export interface RegexPassOptions {
  /**
   * `prompt`: only `promptOnly` scripts, for the outgoing prompt; `stored`: scripts that are
   * neither `promptOnly` nor `markdownOnly`, for the text that is kept.
   */
  readonly mode: 'prompt' | 'stored';
  /** Macro expansion for patterns, trim strings and replacements; `escapeValue` escapes each macro value. */
  readonly expand: (text: string, escapeValue?: (value: string) => string) => string;
  /** Called with a message for every script that cannot run (the text is left as it was). */
  readonly warn: (message: string) => void;
  /** Time budget per script per pass (default 250 ms). */
  readonly budgetMs?: number;
}

function selected(script: RegexScript, mode: RegexPassOptions['mode']): boolean {
  if (script.disabled === true || script.findRegex === '') return false;
  // SillyTavern's rule: prompt passes run promptOnly scripts; plain passes run scripts that are neither.
  return mode === 'prompt' ? script.promptOnly === true : script.promptOnly !== true && script.markdownOnly !== true;
}

function inDepth(script: RegexScript, depth: number | undefined): boolean {
  if (depth === undefined) return true;
  const { minDepth, maxDepth } = script;
  if (typeof minDepth === 'number' && minDepth >= -1 && depth < minDepth) return false;
  if (typeof maxDepth === 'number' && maxDepth >= 0 && depth > maxDepth) return false;
  return true;
}

function label(script: RegexScript, index: number): string {
  return `Regex script "${script.scriptName ?? script.id ?? `#${index}`}"`;
}

function pattern(script: RegexScript, options: RegexPassOptions): RegExp {
  const mode = Number(script.substituteRegex ?? 0);
  const source = mode === 1 ? options.expand(script.findRegex) : mode === 2 ? options.expand(script.findRegex, escapeRegexText) : script.findRegex;
  return compileFindRegex(source);
}

function replacer(script: RegexScript, options: RegexPassOptions): (...args: unknown[]) => string {
  const template = (script.replaceString ?? '').replace(/\{\{match\}\}/gi, '$0');
  const trims = (script.trimStrings ?? []).map((trim) => options.expand(trim)).filter((trim) => trim !== '');
  return (...args: unknown[]) => {
    const last = args[args.length - 1];
    const groups = typeof last === 'object' && last !== null ? (last as Record<string, string | undefined>) : undefined;
    const withGroups = template.replace(/\$(\d+)|\$<([^>]+)>/g, (_whole, number: string | undefined, name: string | undefined) => {
      const value = number !== undefined ? args[Number(number)] : groups?.[name ?? ''];
      if (typeof value !== 'string' || value === '') return '';
      let trimmed = value;
      for (const trim of trims) trimmed = trimmed.replaceAll(trim, '');
      return trimmed;
    });
    return options.expand(withGroups);
  };
}

/**
 * Applies regex scripts to texts the way SillyTavern does: scripts in order, each to the texts
 * whose placement it lists and whose depth it accepts. A script that fails to compile, throws or
 * runs out of time is skipped with a warning; the texts keep what the earlier scripts made.
 * @param targets - texts with their placement and depth
 * @param scripts - scripts in order (preset's, then the card's)
 * @param options - mode, macro expansion, warnings, budget
 * @returns the texts, in the same order
 */
export function applyRegexScripts(targets: readonly RegexTarget[], scripts: readonly RegexScript[], options: RegexPassOptions): string[] {
  const texts = targets.map((target) => target.text);
  scripts.forEach((script, index) => {
    if (!selected(script, options.mode)) return;
    const placements = new Set((script.placement ?? []).map((number) => REGEX_PLACEMENTS[number]).filter((name) => name !== undefined));
    const chosen: number[] = [];
    targets.forEach((target, position) => {
      if (target.placement !== undefined && placements.has(target.placement) && inDepth(script, target.depth) && (texts[position] ?? '') !== '') chosen.push(position);
    });
    if (chosen.length === 0) return;
    try {
      const regex = pattern(script, options);
      const inputs = chosen.map((position) => texts[position] ?? '');
      const replace = replacer(script, options);
      // Safe shapes run natively (fast); risky ones run where a time budget can stop them.
      const replaced = mayBacktrackCatastrophically(regex.source)
        ? replaceWithBudget(inputs, regex, replace, options.budgetMs ?? DEFAULT_REGEX_BUDGET_MS)
        : inputs.map((text) => text.replace(regex, replace));
      chosen.forEach((position, at) => {
        texts[position] = replaced[at] ?? texts[position] ?? '';
      });
    } catch (error) {
      const reason = error instanceof RegexBudgetExceeded ? `ran out of time (${error.message}; the pattern may backtrack catastrophically)` : (error as Error).message;
      options.warn(`${label(script, index)} was not applied: ${reason}`);
    }
  });
  return texts;
}
