import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { DioAbsorbOption } from '@troupe/plugin-actor-assembler';
import type { Command } from 'commander';
import { type DioPreflight, type PresetCheck, checkPresetFile } from '../../presets/preset-check.js';
import type { CliContext } from '../context.js';
import type { CliOutput } from '../output.js';

function parseAbsorb(value: string | undefined): DioAbsorbOption | undefined {
  if (value === undefined || value === 'markers' || value === 'all') return value;
  return value.split(',').map((id) => id.trim()).filter(Boolean);
}

function printPreflight(output: CliOutput, preflight: DioPreflight): void {
  if (preflight.accepts) {
    const replaces = preflight.replaces;
    output.line(`  DIO replaces: "${replaces?.name}" (${replaces?.identifier}, ${replaces?.rule === 'roleplay' ? 'the whole roleplay prompt' : 'its {{getvar::systemPrompt}} placeholder'})`);
  } else {
    output.line(`  DIO cannot use it: [${preflight.reason?.code}] ${preflight.reason?.message}`);
  }
  if (preflight.clean) output.line('  ok: no other prompt carries character text; the compiled prompt is the only character definition');
  else if (preflight.accepts) for (const warning of preflight.warnings) output.line(`  warning: ${warning}`);
  else for (const finding of preflight.characterText) output.line(`  carries the definition: "${finding.name}" (${finding.identifier}) ${finding.fields.map((f) => `{{${f}}}`).join(', ')}`);
}

/**
 * Prints a {@link PresetCheck} for people.
 * @param output - where to write
 * @param check - the check
 */
export function printPresetCheck(output: CliOutput, check: PresetCheck): void {
  output.line(`${check.name ?? '(unnamed preset)'}: ${check.prompts} prompts (${check.format === 'sillytavern' ? 'SillyTavern chat-completion preset' : 'Troupe preset'})`);
  for (const warning of check.importWarnings) output.line(`  import: ${warning}`);
  output.line('As imported:');
  printPreflight(output, check.asImported);
  const { report, preflight } = check.prepared;
  output.line(`Prepared for DIO: ${report.status}${report.reason ? ` [${report.reason.code}] ${report.reason.message}` : ''}`);
  for (const note of report.notes) output.line(`  ${note}`);
  if (report.status !== 'refused') printPreflight(output, preflight);
}

/** Registers `preset check <file> [--absorb markers|all|ID,…] [--json]`. */
export function registerPresetCommand(program: Command, context: CliContext): void {
  const preset = program.command('preset').description('check presets');
  preset
    .command('check <file>')
    .description('show whether DIO can use a preset (SillyTavern or Troupe JSON), which prompt it replaces, what old character text would stay, and what preparing it for DIO does')
    .option('--absorb <which>', 'what preparing may move into the roleplay prompt: markers (default), all, or prompt identifiers separated by commas')
    .option('--json', 'print the check (including the prepared preset) as JSON')
    .action(async (file: string, options: { absorb?: string; json?: boolean }) => {
      const absorb = parseAbsorb(options.absorb);
      const check = checkPresetFile(await readFile(file, 'utf8'), { fileName: basename(file), ...(absorb !== undefined ? { absorb } : {}) });
      if (options.json) context.output.line(JSON.stringify(check, null, 2));
      else printPresetCheck(context.output, check);
    });
}
