import * as z from 'zod';

/**
 * Where a SillyTavern regex script applies (`placement` numbers in the file):
 * 1 user input, 2 AI output, 3 slash commands, 5 world info, 6 reasoning.
 */
export type RegexPlacement = 'userInput' | 'aiOutput' | 'slashCommand' | 'worldInfo' | 'reasoning';

/** SillyTavern's placement numbers. 0 (old markdown display) is kept for files, never matched. */
export const REGEX_PLACEMENTS: Readonly<Record<number, RegexPlacement>> = { 1: 'userInput', 2: 'aiOutput', 3: 'slashCommand', 5: 'worldInfo', 6: 'reasoning' };

/** One regex script, as SillyTavern stores it (preset `extensions.regex_scripts`, card `extensions.regex_scripts`). */
export interface RegexScript {
  readonly id?: string;
  readonly scriptName?: string;
  /** `/pattern/flags` or a bare pattern (then no flags: only the first match is replaced). */
  readonly findRegex: string;
  /** `$1`, `$<name>` and `{{match}}` refer to the match; macros are expanded after. */
  readonly replaceString?: string;
  /** Removed from every captured group before it is substituted. */
  readonly trimStrings?: readonly string[];
  readonly placement?: readonly number[];
  readonly disabled?: boolean;
  /** Only changes what is displayed: never applied to the prompt or stored text. */
  readonly markdownOnly?: boolean;
  /** Only changes the outgoing prompt: stored text stays as written. */
  readonly promptOnly?: boolean;
  readonly runOnEdit?: boolean;
  /** Expand macros in the pattern: 0 no, 1 raw, 2 escaped for a regex. */
  readonly substituteRegex?: number | boolean;
  /** Applies only to messages at least/at most this many messages from the end (0 = the newest). */
  readonly minDepth?: number | null;
  readonly maxDepth?: number | null;
}

/** Schema of one {@link RegexScript} (extra keys kept, so a file round-trips). */
export const RegexScriptSchema = z.looseObject({
  id: z.string().max(256).optional(),
  scriptName: z.string().max(1024).optional(),
  findRegex: z.string().max(100_000),
  replaceString: z.string().max(1_000_000).optional(),
  trimStrings: z.array(z.string().max(10_000)).max(1000).optional(),
  placement: z.array(z.number()).max(16).optional(),
  disabled: z.boolean().optional(),
  markdownOnly: z.boolean().optional(),
  promptOnly: z.boolean().optional(),
  runOnEdit: z.boolean().optional(),
  substituteRegex: z.union([z.number(), z.boolean()]).optional(),
  minDepth: z.number().nullable().optional(),
  maxDepth: z.number().nullable().optional(),
});

/**
 * Reads regex scripts from an untrusted list: valid ones are returned, each invalid one becomes a
 * warning (nothing is silently dropped).
 * @param value - `extensions.regex_scripts` of a preset or card
 * @param source - `preset` or `card`, for the warnings
 * @returns scripts and warnings
 */
export function readRegexScripts(value: unknown, source: string): { scripts: RegexScript[]; warnings: string[] } {
  const scripts: RegexScript[] = [];
  const warnings: string[] = [];
  if (value === undefined || value === null) return { scripts, warnings };
  if (!Array.isArray(value)) return { scripts, warnings: [`${source} regex_scripts is not a list; ignored`] };
  value.forEach((item, index) => {
    const parsed = RegexScriptSchema.safeParse(item);
    if (parsed.success) scripts.push(parsed.data as RegexScript);
    else warnings.push(`${source} regex script #${index} is malformed and is not applied`);
  });
  return { scripts, warnings };
}
