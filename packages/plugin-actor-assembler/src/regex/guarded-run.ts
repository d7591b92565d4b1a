import vm from 'node:vm';

/** Default time one regex script may take over all the texts it is applied to in one pass. */
export const DEFAULT_REGEX_BUDGET_MS = 250;

/** Thrown when a script ran out of time (catastrophic backtracking from an untrusted pattern). */
export class RegexBudgetExceeded extends Error {}

// One sandbox for the process: it holds no globals of ours, only the arguments of the current
// call. Running inside a vm context is what makes the pattern interruptible: V8 stops a
// backtracking regex when the context's timeout fires, which plain code cannot do.
let sandbox: vm.Context | undefined;
const RUN = new vm.Script('__texts.map((text) => text.replace(__regex, __replace))');

/**
 * Replaces `regex` in every text, with a wall-clock budget for the whole batch.
 * @param texts - the texts
 * @param regex - the compiled pattern
 * @param replace - the replacer (SillyTavern's replacement rules)
 * @param budgetMs - time budget
 * @returns the new texts (all or nothing)
 * @throws {RegexBudgetExceeded} when the budget ran out
 */
export function replaceWithBudget(texts: readonly string[], regex: RegExp, replace: (...args: unknown[]) => string, budgetMs: number): string[] {
  sandbox ??= vm.createContext(Object.create(null));
  const context = sandbox as Record<string, unknown>;
  context['__texts'] = texts;
  context['__regex'] = regex;
  context['__replace'] = replace;
  try {
    return RUN.runInContext(sandbox, { timeout: Math.max(1, Math.round(budgetMs)) }) as string[];
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new RegexBudgetExceeded(`ran longer than ${budgetMs} ms`);
    throw error;
  } finally {
    context['__texts'] = undefined;
    context['__regex'] = undefined;
    context['__replace'] = undefined;
  }
}
