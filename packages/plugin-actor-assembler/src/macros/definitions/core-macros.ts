import { type MacroTable, macro } from '../definition.js';
import { rollDice, seededRandom, splitLegacyList, stringHash } from '../random.js';
import { ELSE_MARKER, LEGACY_TRIM, PROTECTED, stripProtected, trimScopedContent } from '../whitespace.js';
import { splitOnTopLevelElse } from './if-else.js';

const FALSE_WORDS = new Set(['false', 'off', '0']);

/**
 * SillyTavern's falsy condition: empty, `false`, `off` or `0` (case-insensitive).
 * @param value - resolved condition
 * @returns whether it counts as false
 */
export function isFalsyCondition(value: string): boolean {
  const bare = stripProtected(value).trim();
  return bare === '' || FALSE_WORDS.has(bare.toLowerCase());
}

const VARIABLE_CONDITION = /^([.$])([a-zA-Z](?:[\w-]*\w)?)$/;

function count(value: string | undefined): number {
  const parsed = Number(value ?? 1);
  // A count from a file: bounded, so `{{newline::1e9}}` cannot allocate a gigabyte.
  return Number.isInteger(parsed) && parsed >= 0 ? Math.min(parsed, 1000) : 1;
}

function listOf(args: readonly string[]): readonly string[] {
  return args.length === 1 ? splitLegacyList(args[0] ?? '') : args;
}

/** Utility, control-flow and random macros. */
export const CORE_MACROS: MacroTable = {
  space: macro(0, 1, ({ args }) => ' '.repeat(count(args[0]))),
  newline: macro(0, 1, ({ args }) => '\n'.repeat(count(args[0]))),
  noop: macro(0, 0, () => PROTECTED),
  trim: macro(0, 1, ({ args, scoped }) => (scoped ? (args[0] ?? '') : LEGACY_TRIM)),
  reverse: macro(1, 1, ({ args }) => Array.from(args[0] ?? '').reverse().join('')),
  else: macro(0, 0, () => ELSE_MARKER),
  // SillyTavern registers `comment` as an alias of `{{//}}` (any arguments, always removed). Its
  // arguments are passed unresolved so, as with `{{// …}}`, nothing inside a comment runs.
  comment: macro(0, Number.POSITIVE_INFINITY, () => '', true),
  input: macro(0, 0, ({ env }) => env.input ?? ''),
  banned: macro(1, 1, () => ''),
  outlet: macro(1, 1, ({ args, env }) => {
    const key = args[0] ?? '';
    return env.outlets !== undefined && Object.hasOwn(env.outlets, key) ? (env.outlets[key] ?? '') : '';
  }),
  if: macro(
    2,
    2,
    (call) => {
      const [rawCondition = '', rawContent = ''] = call.args;
      const [conditionOffset = call.offset, contentOffset = call.offset] = call.argOffsets;
      // Only a `!` written in the source inverts; one coming out of a resolved value does not.
      const inverted = /^\s*!/.test(rawCondition);
      let condition = call.resolve(inverted ? rawCondition.replace(/^\s*!\s*/, '') : rawCondition, conditionOffset).trim();
      const variable = VARIABLE_CONDITION.exec(condition);
      if (variable !== null) {
        const store = variable[1] === '.' ? call.env.variables : call.globals;
        condition = store.get(variable[2] ?? '') ?? '';
      } else if (call.isZeroArgMacro(condition)) {
        condition = call.resolve(`{{${condition}}}`, conditionOffset);
      }
      const truthy = isFalsyCondition(condition) === inverted;
      const { thenBranch, elseBranch, elseOffset } = splitOnTopLevelElse(rawContent);
      const chosen = truthy ? thenBranch : elseBranch;
      if (chosen === undefined) return '';
      const resolved = call.resolve(chosen, truthy ? contentOffset : contentOffset + elseOffset);
      return call.flags.includes('#') ? resolved : trimScopedContent(resolved);
    },
    true,
  ),
  random: macro(0, Number.POSITIVE_INFINITY, ({ args, random }) => {
    const list = listOf(args);
    return list.length === 0 ? '' : (list[Math.floor(random() * list.length)] ?? '');
  }),
  pick: macro(0, Number.POSITIVE_INFINITY, ({ args, env, offset, contentHash }) => {
    const list = listOf(args);
    if (list.length === 0) return '';
    // Stable per chat, text and position (SillyTavern's seed recipe); rerolled by pickRerollSeed.
    const parts = [stringHash(env.chatId ?? ''), contentHash(), offset];
    const seed = [...parts, ...(env.pickRerollSeed ? [env.pickRerollSeed] : [])].join('-');
    return list[Math.floor(seededRandom(String(stringHash(seed)))() * list.length)] ?? '';
  }),
  roll: macro(1, 1, ({ args, random, env }) => {
    const total = rollDice(args[0] ?? '', random);
    // SillyTavern warns and rolls nothing for a formula it cannot read; a formula over the dice
    // cap is treated the same (a file must not make us throw a million dice).
    if (total === undefined) {
      env.onWarning?.(`Invalid roll formula: ${args[0] ?? ''}`);
      return '';
    }
    return String(total);
  }),
};
