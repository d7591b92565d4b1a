import type { MacroEnvironment } from './environment.js';
import { MacroEvaluator } from './evaluate.js';
import { seededRandom, stringHash } from './random.js';
import { finishExpansion, rewriteLegacySyntax, unescapeBraces } from './whitespace.js';

/**
 * Expands macros with SillyTavern's semantics: nested macros inside-out (depth-limited, so
 * nothing loops), scoped `{{name}}…{{/name}}` blocks, `{{if}}…{{else}}…{{/if}}` (only the chosen
 * branch runs), comments removed, legacy `{{trim}}` and `<USER>`/`<BOT>`/`<CHAR>` forms, local and
 * global variables, seeded `{{random}}`/`{{roll}}` and position-stable `{{pick}}`. Values are never
 * re-scanned: a variable holding `{{…}}` stays literal. Unknown macros stay as text (reported
 * through `env.onUnknownMacro`); a call with wrong arguments stays as text (`env.onWarning`).
 * @param text - text with macros
 * @param env - names, fields, variables, clock, randomness and options
 * @returns the expanded text
 * @throws {AssemblerError} MACRO_SLOT_VARIABLE_UNSET, MACRO_RESERVED_VARIABLE, MACRO_UNKNOWN (when `unknownMacros: 'error'`)
 */
export function expandMacros(text: string, env: MacroEnvironment): string {
  if (text === '') return '';
  // Fast path: most prompt text has no macro at all.
  if (!text.includes('{{') && !text.includes('<')) return unescapeBraces(text);
  // Both are needed only by {{pick}} / an unseeded {{random}}: computed on first use.
  let hash: number | undefined;
  const contentHash = () => {
    hash ??= stringHash(text);
    return hash;
  };
  let fallback: (() => number) | undefined;
  const state = {
    env,
    globals: env.globalVariables ?? new Map<string, string>(),
    contentHash,
    random:
      env.random ??
      (() => {
        fallback ??= seededRandom(`${env.seed ?? ''}:${contentHash()}`);
        return fallback();
      }),
    depth: 0,
    activeFields: new Set<string>(),
  };
  return finishExpansion(new MacroEvaluator(state, rewriteLegacySyntax(text), 0).run());
}
