import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { Demo } from '../../compose.js';
import type { Chat } from '../../library/chat-library.js';
import { chatGreetings, chatNames } from '../../library/chat-setup.js';
import { chatFor, invalidOption } from '../chat-target.js';
import { type CliContext, type GlobalOptions, withDemo } from '../context.js';
import { nextStepRequest } from '../../next-step-request.js';

const HELP = '/regenerate (/r) a new reply to your last line · /swipe [n] another greeting · /quit (/q) · /help';

interface LastTurn {
  readonly turnId: string;
  readonly step: number;
  readonly text: string;
}

/**
 * Registers `chat (--card FILE | --character ID | --session ID) [--preset ID] [--persona ID]`: an
 * interactive terminal chat with a library character. It prints the greeting, then reads lines
 * (readline) and streams each reply as it is written. Slash commands: `/regenerate`, `/swipe`,
 * `/quit`, `/help`. Input that is not a terminal (a pipe) works line by line too.
 */
export function registerChatCommand(program: Command, context: CliContext): void {
  program
    .command('chat')
    .description('chat with a character in the terminal (streams replies; /regenerate, /swipe, /quit)')
    .option('--card <file>', 'a character card (.png, .json, .charx): imported into the library once')
    .option('--character <id>', 'a library character')
    .option('--session <id>', 'continue this chat (or start one with this id)')
    .option('--preset <id>', 'the preset (default: the built-in one)')
    .option('--persona <id>', 'who you are (default: the default persona)')
    .action(async (options: { card?: string; character?: string; session?: string; preset?: string; persona?: string }) => {
      await withDemo(context, program.opts<GlobalOptions>(), async (demo) => {
        const chat = await chatFor(demo, options);
        if (!chat) throw invalidOption('Choose who to chat with: --card FILE, --character ID, or --session ID of an existing chat');
        await runChat(demo, chat, context);
      });
    });
}

async function runChat(demo: Demo, first: Chat, context: CliContext): Promise<void> {
  const out = context.output;
  let chat = first;
  const setup = await demo.library.setup(chat.id);
  const names = chatNames(setup);
  const greetings = chatGreetings(setup.character.card.character, names);
  out.line(`Chat ${chat.id}: ${names.char} (preset ${setup.preset.name}, you are ${names.user}; model ${demo.modelId}${demo.modelId === 'offline' ? ' — the offline simulation, not a language model' : ''})`);
  out.line(HELP);
  const showGreeting = () => {
    const text = greetings[chat.greetingIndex] ?? '';
    if (text.trim() !== '') out.line(`${names.char}: ${text}${greetings.length > 1 ? `   [greeting ${chat.greetingIndex + 1}/${greetings.length}]` : ''}`);
  };
  showGreeting();

  let last: LastTurn | undefined;
  const play = async (text: string, regenerate?: LastTurn) => {
    out.write(`${names.char}: `);
    const input = await demo.turnInputFor(chat.id, text);
    try {
      const options = { onReplyDelta: (delta: string) => out.write(delta) };
      // A regeneration's step is chosen by the kernel in the session's queue: the web app may
      // have added steps to this chat meanwhile.
      const result = regenerate ? await demo.harness.regenerateTurn(nextStepRequest(input, regenerate.turnId), options) : await demo.harness.runTurn(input, options);
      out.line('');
      last = { turnId: result.turnId, step: result.step, text };
    } catch (error) {
      out.line('');
      const { code, message } = error as { code?: string; message?: string };
      out.line(`error${code ? ` [${code}]` : ''}: ${message ?? String(error)}`);
    }
  };

  const lines = createInterface({ input: context.input ?? process.stdin, terminal: false });
  for await (const raw of lines) {
    const line = raw.trim();
    if (line === '') continue;
    if (!line.startsWith('/')) {
      await play(line);
      continue;
    }
    const [command, argument] = line.slice(1).split(/\s+/, 2);
    if (command === 'quit' || command === 'q' || command === 'exit') break;
    if (command === 'help' || command === 'h') {
      out.line(HELP);
    } else if (command === 'regenerate' || command === 'regen' || command === 'r') {
      if (last) await play(last.text, last);
      else out.line('Nothing to regenerate yet: say something first.');
    } else if (command === 'swipe') {
      const next = argument === undefined ? (chat.greetingIndex + 1) % greetings.length : Number(argument) - 1;
      if (!Number.isInteger(next) || next < 0 || next >= greetings.length) out.line(`This character has ${greetings.length} greeting(s): /swipe 1–${greetings.length}`);
      else {
        chat = await demo.library.chats.update(chat.id, { greetingIndex: next });
        showGreeting();
      }
    } else {
      out.line(`Unknown command /${command}. ${HELP}`);
    }
  }
  lines.close();
  out.line(`Bye. Continue later with: chat --session ${chat.id}`);
}
