import { importCharacterCardFile } from '@troupe/plugin-actor-assembler';
import type { Command } from 'commander';
import type { Demo } from '../../compose.js';
import { type CliContext, type GlobalOptions, withDemo } from '../context.js';
import { invalidOption } from '../chat-target.js';
import { characterFromCard, leftOutOfStoryCharacter } from './character-from-card.js';

// A card from a file, or the card of a library character.
async function cardFor(demo: Demo, file: string | undefined, libraryId: string | undefined) {
  if (file && libraryId) throw invalidOption('Give either a card FILE or --character ID, not both');
  if (libraryId) return (await demo.library.characters.get(libraryId)).card;
  if (!file) throw invalidOption('Give a card FILE or --character ID');
  return importCharacterCardFile(file);
}

/** Registers `story list | show <id> | create <id> --name N | delete <id> | import-card <id> <file>`. */
export function registerStoryCommand(program: Command, context: CliContext): void {
  const story = program.command('story').description('manage story workspaces');
  const run = (body: (demo: Demo) => Promise<void>): Promise<void> => withDemo(context, program.opts<GlobalOptions>(), body);
  story
    .command('list')
    .description('list story workspaces')
    .action(() =>
      run(async (demo) => {
        const ids = await demo.workspaces.list();
        if (ids.length === 0) context.output.line('(no story workspaces — `pnpm demo` creates an example)');
        for (const id of ids) context.output.line(id);
      }),
    );
  story
    .command('show <id>')
    .description("print a workspace's manifest and files")
    .action((id: string) =>
      run(async (demo) => {
        const workspace = await demo.workspaces.read(id);
        context.output.line(`${workspace.manifest.name} (${id}, revision ${workspace.revision})`);
        for (const [path, content] of Object.entries(workspace.files).sort(([a], [b]) => a.localeCompare(b))) {
          context.output.line(`\n--- ${path}`);
          context.output.line(content.trimEnd());
        }
      }),
    );
  story
    .command('create <id>')
    .description('create an empty workspace')
    .requiredOption('--name <name>', 'display name')
    .action((id: string, options: { name: string }) =>
      run(async (demo) => {
        const workspace = await demo.workspaces.create(id, { name: options.name });
        context.output.line(`created ${id} (revision ${workspace.revision})`);
      }),
    );
  story
    .command('delete <id>')
    .description('delete a workspace and its files')
    .action((id: string) =>
      run(async (demo) => {
        // readRaw: a workspace whose manifest.json a hand edit broke must still be deletable.
        const workspace = await demo.workspaces.readRaw(id);
        const deleted = await demo.workspaces.delete(id, workspace.revision);
        context.output.line(deleted ? `deleted ${id}` : `${id} did not exist`);
      }),
    );
  story
    .command('import-card <id> [file]')
    .description('add a character to a workspace from a card file (V1/V2/V3 .json, .png, .charx) or from the library (--character)')
    .option('--character-id <characterId>', 'id for the character in the story (default: from the card name)')
    .option('--character <libraryId>', 'a library character instead of a file')
    .action((id: string, file: string | undefined, options: { characterId?: string; character?: string }) =>
      run(async (demo) => {
        const card = await cardFor(demo, file, options.character);
        const workspace = await demo.workspaces.read(id);
        const taken = new Set(workspace.manifest.characters.map((entry) => entry.id));
        const user = (await demo.library.personas.get(await demo.library.personas.defaultId())).name;
        const character = characterFromCard(card.character, { ...(options.characterId ? { id: options.characterId } : {}), taken, user });
        const updated = await demo.workspaces.addCharacter(id, workspace.revision, character);
        context.output.line(`added ${character.name} as "${character.id}" to ${id} (revision ${updated.revision}); ${card.spec} ${card.specVersion}`);
        for (const note of leftOutOfStoryCharacter(card.character)) context.output.line(`  note: ${note}`);
      }),
    );
}
