import { clearStoryWorkspace, selectStoryWorkspace } from '@troupe/plugin-story';
import { Hono } from 'hono';
import * as z from 'zod';
import type { Demo } from '../../compose.js';
import type { Chat, ChatChange } from '../../library/chat-library.js';
import { chatGreetings, chatNames, dioTargetPromptId } from '../../library/chat-setup.js';
import { LibraryError } from '../../library/library-error.js';
import type { ChatView } from '../../wire/library.js';
import { jsonBody, param, StoryIdSchema } from '../validation.js';
import { BaseRevisionSchema, LibraryIdSchema } from './library-schemas.js';

const CreateSchema = z
  .object({
    characterId: LibraryIdSchema,
    presetId: LibraryIdSchema.optional(),
    personaId: LibraryIdSchema.optional(),
    storyId: StoryIdSchema.nullable().optional(),
    useCardPrompts: z.boolean().optional(),
    title: z.string().trim().max(256).optional(),
  })
  .strict();

const ChangeSchema = z
  .object({
    baseRevision: BaseRevisionSchema.optional(),
    presetId: LibraryIdSchema.optional(),
    personaId: LibraryIdSchema.optional(),
    storyId: StoryIdSchema.nullable().optional(),
    greetingIndex: z.number().int().min(0).optional(),
    useCardPrompts: z.boolean().optional(),
    title: z.string().trim().max(256).optional(),
  })
  .strict();

/**
 * Chat routes under `/api/chats`. A chat is a session (its id is the session id, so turns go to
 * `POST /api/sessions/:id/turns`) that belongs to a character, a preset, a persona and optionally a
 * story workspace; its first message is the card's greeting, the alternate greetings its swipes.
 * @param demo - the composed demo
 * @returns the routes
 */
export function chatRoutes(demo: Demo): Hono {
  const app = new Hono();
  const { chats, characters, presets, personas } = demo.library;
  const id = (c: Parameters<typeof param>[0]) => param(c, 'chatId', LibraryIdSchema);

  const view = async (chat: Chat): Promise<ChatView> => {
    try {
      const setup = await demo.library.setup(chat.id);
      const names = chatNames(setup);
      const report = setup.preset.report;
      return {
        ...chat,
        character: { id: setup.character.id, name: setup.character.name, displayName: names.char, hasAvatar: setup.character.hasAvatar },
        preset: { id: setup.preset.id, name: setup.preset.name, dioAccepts: setup.preset.dioAccepts },
        persona: { id: setup.persona.id, name: setup.persona.name },
        greetings: chatGreetings(setup.character.card.character, names),
        dio: report.dio.accepts
          ? { enabled: true, targetPromptId: dioTargetPromptId(setup.character.id), reason: null }
          : { enabled: false, targetPromptId: null, reason: report.dio.reason.message },
        problem: null,
      };
    } catch (error) {
      if (!LibraryError.isInstance(error)) throw error;
      return { ...chat, character: null, preset: null, persona: null, greetings: [], dio: { enabled: false, targetPromptId: null, reason: null }, problem: error.message };
    }
  };

  // References are checked before anything is written, so a typo never leaves a broken chat.
  const checkReferences = async (change: { presetId?: string | undefined; personaId?: string | undefined; storyId?: string | null | undefined }) => {
    if (change.presetId !== undefined) await presets.get(change.presetId);
    if (change.personaId !== undefined) await personas.get(change.personaId);
    if (change.storyId) await demo.workspaces.read(change.storyId);
  };

  const applyStory = async (chatId: string, storyId: string | null | undefined) => {
    if (storyId === undefined) return;
    if (storyId === null) await clearStoryWorkspace(demo.storage.sessions, chatId);
    else await selectStoryWorkspace(demo.storage.sessions, chatId, storyId);
  };

  app.get('/', async (c) => c.json({ chats: await Promise.all((await chats.list()).map(view)) }));

  app.post('/', async (c) => {
    const body = await jsonBody(c, CreateSchema);
    const character = await characters.get(body.characterId);
    // The default persona is read too: one a hand edit broke refuses the chat here, naming the
    // file, instead of a chat whose first turn fails (the API never deletes the default one).
    const personaId = body.personaId ?? (await personas.defaultId());
    await checkReferences({ ...body, personaId });
    const chat = await chats.create({
      title: body.title || character.name,
      characterId: character.id,
      presetId: body.presetId ?? 'default',
      personaId,
      storyId: body.storyId ?? null,
      greetingIndex: 0,
      useCardPrompts: body.useCardPrompts ?? true,
    });
    await applyStory(chat.id, body.storyId ?? undefined);
    return c.json(await view(chat), 201);
  });

  app.get('/:chatId', async (c) => c.json(await view(await chats.get(id(c)))));

  app.patch('/:chatId', async (c) => {
    const chatId = id(c);
    const { baseRevision, ...change } = await jsonBody(c, ChangeSchema);
    await checkReferences(change);
    if (change.greetingIndex !== undefined) {
      const current = await chats.get(chatId);
      const count = 1 + (await characters.get(current.characterId)).card.character.alternateGreetings.length;
      if (change.greetingIndex >= count) throw new LibraryError('LIBRARY_INVALID', `greetingIndex: this character has ${count} greeting(s) (0–${count - 1})`);
    }
    const updated = await chats.update(chatId, change as ChatChange, baseRevision);
    await applyStory(chatId, change.storyId);
    return c.json(await view(updated));
  });

  app.delete('/:chatId', async (c) => {
    const chatId = id(c);
    await chats.delete(chatId);
    return c.json({ deleted: true, id: chatId });
  });

  return app;
}
