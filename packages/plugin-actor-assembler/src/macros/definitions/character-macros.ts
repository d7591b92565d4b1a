import { type MacroCall, type MacroTable, macro } from '../definition.js';
import type { MacroFields } from '../environment.js';

const userName = ({ env }: MacroCall): string => env.user ?? 'User';
const charName = ({ env }: MacroCall): string => env.char ?? 'Character';
const groupNames = (call: MacroCall): string => (call.env.group !== undefined && call.env.group.length > 0 ? call.env.group.join(', ') : charName(call));

// Card fields are written with macros in them ({{char}}, {{user}}, even {{random}}); SillyTavern
// expands them, so they are expanded here too, depth-limited, at the position of the macro.
function field(name: keyof MacroFields) {
  return macro(0, 0, (call) => {
    const text = call.env.fields?.[name] ?? '';
    if (!text.includes('{{') && !text.includes('<')) return text;
    if (call.activeFields.has(name)) return '';
    call.activeFields.add(name);
    try {
      return call.resolve(text, call.offset);
    } finally {
      call.activeFields.delete(name);
    }
  });
}

/** Names, character-card fields and the model. */
export const CHARACTER_MACROS: MacroTable = {
  user: macro(0, 0, userName),
  char: macro(0, 0, charName),
  group: macro(0, 0, groupNames),
  charifnotgroup: macro(0, 0, groupNames),
  notchar: macro(0, 0, userName),
  original: macro(0, 0, ({ env }) => env.original ?? ''),
  model: macro(0, 0, ({ env }) => env.model ?? ''),
  description: field('description'),
  chardescription: field('description'),
  personality: field('personality'),
  charpersonality: field('personality'),
  scenario: field('scenario'),
  charscenario: field('scenario'),
  persona: field('persona'),
  mesexamples: field('mesExamples'),
  mesexamplesraw: macro(0, 0, ({ env }) => env.fields?.mesExamples ?? ''),
  charprompt: field('charPrompt'),
  charinstruction: field('charInstruction'),
  charjailbreak: field('charInstruction'),
  chardepthprompt: field('charDepthPrompt'),
  charversion: macro(0, 0, ({ env }) => env.fields?.charVersion ?? ''),
  char_version: macro(0, 0, ({ env }) => env.fields?.charVersion ?? ''),
  creatornotes: field('creatorNotes'),
};
