import { beforeAll, describe, expect, it } from 'vitest';
import { LIA_CHARACTER_PROMPT } from '../src/example/lia-character.js';
import { expectError, playTurn } from './support/api-client.js';
import { corpusBytes, upload } from './support/corpus.js';
import { eventually } from './support/web-fixture.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

const fx = setupWebFixture();
const { api } = fx;
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

const card = {
  spec: 'chara_card_v2',
  spec_version: '2.0',
  data: {
    name: 'Mira',
    description: '{{char}} is a cartographer who maps the fog for {{user}}.',
    personality: 'precise, dry humour',
    scenario: 'A map room above the harbour.',
    first_mes: '*{{char}} looks up from her charts.* You must be {{user}}.',
    alternate_greetings: ['*The lamp flickers.* Late again, {{user}}?', '*{{char}} rolls up a map.* Sit.'],
    system_prompt: 'CARD MAIN for {{char}}. {{original}}',
    post_history_instructions: 'CARD AFTER HISTORY: keep it short.',
  },
};

type Prepared = { role: string; content: string }[];
async function preparedOf(chatId: string, text: string): Promise<Prepared> {
  const result = (await playTurn(fx.server.url, chatId, text)).at(-1);
  expect(result?.event).toBe('result');
  return (result?.data as { prepared: { history: Prepared } } | undefined)?.prepared.history ?? [];
}

let characterId = '';
beforeAll(async () => {
  characterId = (await upload(fx.server.url, '/api/characters', json(card), 'mira.json')).body.id;
});

describe('chats', () => {
  it('start with the greeting, offer alternate greetings as swipes, and play the chat character', async () => {
    const chat = await api('POST', '/api/chats', { characterId });
    expect(chat.status).toBe(201);
    expect(chat.body).toMatchObject({ characterId, presetId: 'default', personaId: 'user', greetingIndex: 0, useCardPrompts: true });
    expect(chat.body.greetings).toEqual(['*Mira looks up from her charts.* You must be User.', '*The lamp flickers.* Late again, User?', '*Mira rolls up a map.* Sit.']);

    const swiped = await api('PATCH', `/api/chats/${chat.body.id}`, { greetingIndex: 2 });
    expect(swiped.body.greetingIndex).toBe(2);
    expectError(await api('PATCH', `/api/chats/${chat.body.id}`, { greetingIndex: 3 }), 400, 'LIBRARY_INVALID');

    const messages = await preparedOf(chat.body.id, 'What are you drawing?');
    const text = messages.map((m) => m.content).join('\n');
    // The actor's final messages: this character's description with names in, not Lia's.
    expect(text).toContain('Mira is a cartographer who maps the fog for User.');
    expect(text).not.toContain(LIA_CHARACTER_PROMPT.split('\n')[0]);
    expect(text).not.toContain('{{char}}');
    // The chosen greeting is the first assistant message, right before the player's line.
    expect(messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual(['*Mira rolls up a map.* Sit.']);
    // V2 spec: the card's system_prompt replaces main ({{original}} = the preset's main) and its
    // post_history_instructions come after the history.
    expect(messages[0]?.content).toMatch(/^CARD MAIN for Mira\. Write Mira's next reply/);
    expect(messages.at(-1)).toEqual({ role: 'system', content: 'CARD AFTER HISTORY: keep it short.' });
    expect(messages.at(-2)).toEqual({ role: 'user', content: 'What are you drawing?' });

    // Opting out of the card's prompts gives the preset's own.
    await api('PATCH', `/api/chats/${chat.body.id}`, { useCardPrompts: false });
    const plain = await preparedOf(chat.body.id, 'And now?');
    expect(plain.map((m) => m.content).join('\n')).not.toContain('CARD MAIN');
  });

  it("plays the card's depth prompt and regex scripts too", async () => {
    const extended = {
      ...card,
      data: {
        ...card.data,
        name: 'Deep',
        extensions: {
          depth_prompt: { prompt: 'DEPTH NOTE for {{char}}', depth: 0, role: 'system' },
          regex_scripts: [{ scriptName: 'mask', findRegex: '/secret/g', replaceString: '[hidden]', placement: [1], disabled: false, promptOnly: true }],
        },
      },
    };
    const id = (await upload(fx.server.url, '/api/characters', json(extended), 'deep.json')).body.id;
    const chat = await api('POST', '/api/chats', { characterId: id });
    const text = (await preparedOf(chat.body.id, 'Tell me the secret.')).map((m) => m.content).join('\n');
    expect(text).toContain('DEPTH NOTE for Deep');
    expect(text).toContain('Tell me the [hidden].');
  });

  it('switches persona and preset per chat', async () => {
    const persona = await api('POST', '/api/personas', { name: 'Ash', description: 'A courier with a lantern.' });
    expect(persona.status).toBe(201);
    const chat = await api('POST', '/api/chats', { characterId, personaId: persona.body.id });
    expect(chat.body.greetings[0]).toBe('*Mira looks up from her charts.* You must be Ash.');
    const first = (await preparedOf(chat.body.id, 'Hi')).map((m) => m.content).join('\n');
    expect(first).toContain('A courier with a lantern.');
    expect(first).toContain('maps the fog for Ash');

    const preset = await upload(fx.server.url, '/api/presets', corpusBytes('presets', 'p01-st-default.json'), 'Default.json');
    expect(preset.status).toBe(201);
    expect(preset.body.report).toMatchObject({ ok: true, dio: { accepts: false } });
    const view = await api('GET', `/api/presets/${preset.body.id}`);
    expect(view.body.report.dio.reason.code).toBe('DIO_NO_SLOT');
    const switched = await api('PATCH', `/api/chats/${chat.body.id}`, { presetId: preset.body.id });
    expect(switched.body.preset).toMatchObject({ id: preset.body.id, dioAccepts: false });
    expect(switched.body.dio).toMatchObject({ enabled: false });
    const withSt = await preparedOf(chat.body.id, 'Hi again');
    // SillyTavern's default main prompt, with the chat's names put in.
    expect(withSt.map((m) => m.content).join('\n')).toContain("Write Mira's next reply in a fictional chat between Mira and Ash.");

    expectError(await api('PATCH', `/api/chats/${chat.body.id}`, { presetId: 'nope' }), 404, 'LIBRARY_NOT_FOUND');
    expectError(await api('PATCH', `/api/chats/${chat.body.id}`, { personaId: 'nope' }), 404, 'LIBRARY_NOT_FOUND');
  });

  it("plays an imported SillyTavern preset with its settings: the formats, the example and new-chat prompts, and the greeting as the chat's first message", async () => {
    const vela = {
      spec: 'chara_card_v2',
      spec_version: '2.0',
      data: {
        name: 'Vela',
        description: '{{char}} keeps the lighthouse.',
        personality: 'calm, watchful',
        scenario: 'A storm night at the lighthouse.',
        first_mes: '*{{char}} trims the wick.* Welcome, {{user}}.',
        mes_example: '<START>\n{{user}}: Is the light on?\n{{char}}: Always.',
      },
    };
    const id = (await upload(fx.server.url, '/api/characters', json(vela), 'vela.json')).body.id;
    const preset = await upload(fx.server.url, '/api/presets', corpusBytes('presets', 'p01-st-default.json'), 'Default.json');
    const chat = await api('POST', '/api/chats', { characterId: id, presetId: preset.body.id });
    const messages = await preparedOf(chat.body.id, 'Hello, keeper.');
    const at = (content: string) => messages.findIndex((m) => m.content === content);
    // SillyTavern's personality_format and scenario_format wrap the card's fields.
    expect(at("[Vela's personality: calm, watchful]")).toBeGreaterThan(-1);
    expect(at('[Circumstances and context of the dialogue: A storm night at the lighthouse.]')).toBeGreaterThan(-1);
    // new_example_chat_prompt heads each example dialogue.
    expect(at('[Example Chat]')).toBeGreaterThan(-1);
    expect(messages[at('[Example Chat]') + 1]?.content).toContain('Is the light on?');
    // new_chat_prompt starts the chat; the greeting is the chat's first message (SillyTavern's
    // chat[0]), then the player's line.
    const newChat = at('[Start a new Chat]');
    expect(newChat).toBeGreaterThan(at('[Example Chat]'));
    expect(messages[newChat + 1]).toEqual({ role: 'assistant', content: '*Vela trims the wick.* Welcome, User.' });
    expect(messages[newChat + 2]).toEqual({ role: 'user', content: 'Hello, keeper.' });

    // This preset has no DIO slot, so the chat plays without DIO: a lasting requirement is not
    // offered to the director at all (no call, no "the turn has no userId" failure).
    const result = (await playTurn(fx.server.url, chat.body.id, '从现在起薇拉都用短句回答。')).at(-1);
    expect(result?.event).toBe('result');
    const types = ((await api('GET', `/api/sessions/${chat.body.id}/events`)).body.events as { type: string }[]).map((event) => event.type);
    expect(types.filter((type) => type === 'dio/schedule-failed' || type.startsWith('kernel/director') || type === 'kernel/tool-called')).toEqual([]);
  });

  it("plays on with the default preset and persona when the ones a chat uses were deleted, as SillyTavern falls back", async () => {
    const persona = await api('POST', '/api/personas', { name: 'Rook', description: 'A courier.' });
    const preset = await upload(fx.server.url, '/api/presets', corpusBytes('presets', 'p01-st-default.json'), 'Gone.json');
    const chat = await api('POST', '/api/chats', { characterId, presetId: preset.body.id, personaId: persona.body.id });
    expect((await api('DELETE', `/api/presets/${preset.body.id}`)).status).toBe(200);
    expect((await api('DELETE', `/api/personas/${persona.body.id}`)).status).toBe(200);
    const view = await api('GET', `/api/chats/${chat.body.id}`);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ preset: { id: 'default' }, persona: { id: 'user' } });
    const text = (await preparedOf(chat.body.id, 'Still there?')).map((m) => m.content).join('\n');
    expect(text).toContain('Mira is a cartographer who maps the fog for User.');
    // Choosing a preset again repairs the chat record.
    expect((await api('PATCH', `/api/chats/${chat.body.id}`, { presetId: 'default' })).body.presetId).toBe('default');
  });

  it('targets DIO at the chat character and registers its base prompt from the card', async () => {
    const chat = await api('POST', '/api/chats', { characterId });
    expect(chat.body.dio).toEqual({ enabled: true, targetPromptId: `character-${characterId}`, reason: null });
    const input = await fx.demo.turnInputFor(chat.body.id, 'hello');
    expect(input.attributes?.['targetPromptId']).toBe(`character-${characterId}`);
    await preparedOf(chat.body.id, 'From now on, answer in short sentences.');
    const dio = await eventually(async () => {
      const view = await api('GET', `/api/sessions/${chat.body.id}/dio`);
      return view.body.task?.status === 'succeeded' && view.body.activePrompt ? view.body : undefined;
    }, 'the DIO task of the chat');
    expect(dio.targetPromptId).toBe(`character-${characterId}`);
    // The service compiled the card's character (registered from the card), not Lia.
    expect(dio.activePrompt.compiledPrompt).toContain('Mira is a cartographer who maps the fog for User.');
    expect(dio.activePrompt.compiledPrompt).not.toContain('莉娅');
    const next = await preparedOf(chat.body.id, 'What now?');
    expect(next.map((m) => m.content)).toContain(dio.activePrompt.compiledPrompt);
    // Plain sessions still play the example character.
    expect((await fx.demo.turnInputFor('plain-session', 'hello')).attributes).toBeUndefined();
  });

  it('still plays a character whose base prompt the DIO service refuses, without DIO for that turn', async () => {
    const huge = (await upload(fx.server.url, '/api/characters', json({ ...card, data: { ...card.data, name: 'Huge', description: 'A very long history. '.repeat(4000) } }), 'huge.json')).body.id;
    const chat = await api('POST', '/api/chats', { characterId: huge });
    const input = await fx.demo.turnInputFor(chat.body.id, 'hello');
    expect(input.userId).toBeUndefined();
    expect(input.attributes).toBeUndefined();
    const messages = await preparedOf(chat.body.id, 'Are you still there?');
    expect(messages.map((m) => m.content).join('\n')).toContain('A very long history.');
  });

  it('keeps a chat whose character was deleted, and says so instead of playing someone else', async () => {
    const other = (await upload(fx.server.url, '/api/characters', json({ ...card, data: { ...card.data, name: 'Gone' } }), 'gone.json')).body.id;
    const chat = await api('POST', '/api/chats', { characterId: other });
    await api('DELETE', `/api/characters/${other}`);
    const view = await api('GET', `/api/chats/${chat.body.id}`);
    expect(view.body.problem).toContain(`the character "${other}"`);
    expectError(await api('POST', `/api/sessions/${chat.body.id}/turns`, { text: 'hello?' }), 404, 'LIBRARY_NOT_FOUND');
  });

  it('chats with a story workspace and adds library characters to stories with names put in', async () => {
    await api('POST', '/api/stories', { id: 'fog-maps', name: 'Fog maps' });
    const chat = await api('POST', '/api/chats', { characterId, storyId: 'fog-maps' });
    expect((await api('GET', `/api/sessions/${chat.body.id}/story`)).body.storyId).toBe('fog-maps');
    const added = await api('POST', '/api/stories/fog-maps/characters/from-library', { baseRevision: 1, characterId });
    expect(added.status).toBe(201);
    const persona = added.body.files[`characters/${added.body.manifest.characters[0].id}/persona.md`] as string;
    expect(persona).toContain('Mira is a cartographer who maps the fog for User.');
    expect(persona).not.toMatch(/\{\{(char|user)\}\}/);
    const zh = (await upload(fx.server.url, '/api/characters', corpusBytes('cards', 'c17-zh-ai-v3.json'), 'ai.json')).body.id;
    const withZh = await api('POST', '/api/stories/fog-maps/characters/from-library', { baseRevision: added.body.revision, characterId: zh });
    expect(withZh.status).toBe(201);
    expect(withZh.body.manifest.characters.map((c: { id: string }) => c.id)).toHaveLength(2);
  });
});
