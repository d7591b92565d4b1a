import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from './support/fake-openai.js';
import { RUN_BROWSER_TESTS } from './support/browser.js';
import { playTurn } from './support/api-client.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

const SESSION = 'controls-browser';
const POLL = { timeout: 30_000 };

/** Every answer of the model server differs (`回复N`), so the tests can tell the steps apart. */
const numberedReply = (_body: RecordedRequest['body'], index: number) => `回复${index + 1}：莉娅点亮了灯笼。`;

interface LoggedEvent {
  readonly type: string;
  readonly turnId: string;
  readonly step: number;
  readonly data: { readonly input?: string; readonly reply?: string };
}

interface Message {
  readonly turnId: string;
  readonly step: number;
  readonly input: string;
  readonly reply: string;
  readonly edited?: boolean;
  readonly continuedFrom?: number;
  readonly steps: readonly { step: number }[];
}

describe.runIf(RUN_BROWSER_TESTS)('chat controls in headless Chromium', () => {
  const fx = setupWebFixture({ fakeModel: { reply: numberedReply, use: true }, browser: 'fail-on-page-errors' });
  let page: Page;

  beforeAll(async () => {
    await fx.browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: fx.server.url });
    page = await fx.browser.context.newPage();
    await page.goto(`${fx.server.url}/#session=${SESSION}`);
  });

  const events = async (): Promise<LoggedEvent[]> => (await fx.demo.storage.sessions.read(SESSION)) as unknown as LoggedEvent[];
  const messages = async (): Promise<Message[]> => ((await (await fetch(`${fx.server.url}/api/sessions/${SESSION}/messages`)).json()) as { messages: Message[] }).messages;
  // The last exchange's reply; while a reply streams that exchange has no reply row yet, so this
  // waits for the committed one instead of matching an earlier turn.
  const lastReplyRow = (): Locator => page.locator('.messages > .exchange').last().getByTestId('reply-row');
  const bodyOf = async (row: Locator): Promise<string> => (await row.locator('.message-body').textContent()) ?? '';
  /** The model request of the actor for the turn whose player line is `line`. */
  const actorRequestFor = (line: string): string => {
    const request = fx.fake.requests.filter((r) => JSON.stringify(r.body.messages?.at(-1) ?? '').includes(line)).at(-1);
    expect(request, `no actor request ends with "${line}"`).toBeDefined();
    return JSON.stringify(request?.body.messages);
  };
  /** Types a line and sends it with Enter, waiting for the reply count to grow. */
  const sendWithEnter = async (line: string): Promise<void> => {
    const before = await page.getByTestId('reply').count();
    await page.getByTestId('chat-input').fill(line);
    await page.getByTestId('chat-input').press('Enter');
    await expect.poll(() => page.getByTestId('reply').count(), POLL).toBe(before + 1);
  };

  it('regenerates twice, swipes back to the first reply, and the next turn’s actor sees the kept reply', async () => {
    await sendWithEnter('第一句。');
    const first = await bodyOf(lastReplyRow());
    expect(first).toMatch(/^回复\d+：/);

    await lastReplyRow().getByTestId('reply-regenerate').click();
    await expect.poll(() => lastReplyRow().getByTestId('step-position').textContent(), POLL).toBe('2 / 2');
    const second = await bodyOf(lastReplyRow());
    await lastReplyRow().getByTestId('reply-regenerate').click();
    await expect.poll(() => lastReplyRow().getByTestId('step-position').textContent(), POLL).toBe('3 / 3');
    const third = await bodyOf(lastReplyRow());
    expect(new Set([first, second, third]).size).toBe(3);

    await lastReplyRow().getByTestId('step-prev').click();
    await expect.poll(() => lastReplyRow().getByTestId('step-position').textContent(), POLL).toBe('2 / 3');
    await lastReplyRow().getByTestId('step-prev').click();
    await expect.poll(() => lastReplyRow().getByTestId('step-position').textContent(), POLL).toBe('1 / 3');
    expect(await bodyOf(lastReplyRow())).toBe(first);
    expect(await lastReplyRow().getByTestId('step-prev').isDisabled()).toBe(true);
    const [turn] = await messages();
    expect({ step: turn?.step, reply: turn?.reply, steps: turn?.steps.length }).toEqual({ step: 0, reply: first, steps: 3 });
    expect((await events()).filter((e) => e.type === 'kernel/step-selected').map((e) => e.step)).toEqual([1, 0]);

    await sendWithEnter('第二句。');
    const history = actorRequestFor('第二句。');
    expect(history).toContain(first);
    expect(history).not.toContain(second);
    expect(history).not.toContain(third);
  });

  it('edits a reply and the player’s line (Cancel keeps it), and the next actor reads the edits', async () => {
    const row = lastReplyRow();
    const original = await bodyOf(row);
    await row.getByTestId('msg-edit').click();
    await row.getByTestId('msg-edit-text').fill('不会保存的文字');
    await row.getByTestId('msg-edit-cancel').click();
    expect(await bodyOf(row)).toBe(original);

    await row.getByTestId('msg-edit').click();
    await row.getByTestId('msg-edit-text').fill('莉娅把灯递给你。');
    await row.getByTestId('msg-edit-save').click();
    await expect.poll(() => bodyOf(row), POLL).toBe('莉娅把灯递给你。');
    await row.getByTestId('msg-edited').waitFor();

    const line = page.getByTestId('user-line-row').last();
    await line.getByTestId('msg-edit').click();
    await line.getByTestId('msg-edit-text').fill('第二句（改）。');
    await line.getByTestId('msg-edit-save').click();
    await expect.poll(() => bodyOf(line), POLL).toBe('第二句（改）。');

    const last = (await messages()).at(-1);
    expect({ input: last?.input, reply: last?.reply, edited: last?.edited }).toEqual({ input: '第二句（改）。', reply: '莉娅把灯递给你。', edited: true });
    const log = await events();
    expect(log.filter((e) => e.type === 'kernel/turn-edited')).toHaveLength(2);
    // The original stays in the log: an edit never destroys what was committed.
    expect(log.some((e) => e.type === 'kernel/turn-committed' && e.data.reply === original)).toBe(true);

    await sendWithEnter('第三句。');
    const history = actorRequestFor('第三句。');
    expect(history).toContain('莉娅把灯递给你。');
    expect(history).toContain('第二句（改）。');
    expect(history).not.toContain(original);
  });

  it("a refused edit says why in the editor itself, which keeps the text; the chat is unchanged", async () => {
    const line = page.getByTestId('user-line-row').last();
    const before = await bodyOf(line);
    const tooLong = '长'.repeat(8_001);
    await line.getByTestId('msg-edit').click();
    await line.getByTestId('msg-edit-text').fill(tooLong);
    await line.getByTestId('msg-edit-save').click();
    const editor = line.getByTestId('message-editor');
    await expect.poll(async () => ((await editor.getByRole('alert').count()) > 0 ? ((await editor.getByRole('alert').textContent()) ?? '') : ''), POLL).toMatch(/8000|8 000|8,000/);
    // Said once, where the player is looking, not in the box under the chat.
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(await line.getByTestId('msg-edit-text').inputValue()).toBe(tooLong);
    await line.getByTestId('msg-edit-cancel').click();
    expect(await bodyOf(line)).toBe(before);
    expect((await messages()).at(-1)?.input).toBe(before);
  });

  it('deletes the last two messages after a confirmation (Cancel deletes nothing)', async () => {
    expect(await page.getByTestId('user-line').count()).toBe(3);
    const line = page.getByTestId('user-line-row').last();
    await line.getByTestId('msg-delete').click();
    expect(await line.getByTestId('delete-confirm').textContent()).toContain('2');
    await line.getByTestId('msg-delete-cancel').click();
    expect(await page.getByTestId('delete-confirm').count()).toBe(0);
    expect((await messages()).length).toBe(3);

    await line.getByTestId('msg-delete').click();
    await line.getByTestId('msg-delete-confirm').click();
    await expect.poll(() => page.getByTestId('reply').count(), POLL).toBe(2);
    expect(await page.getByTestId('user-line').count()).toBe(2);
    expect((await messages()).map((m) => m.input)).toEqual(['第一句。', '第二句（改）。']);
    expect((await events()).filter((e) => e.type === 'kernel/turns-removed')).toHaveLength(1);
  });

  it('continues the last reply: the continuation is appended as a new step', async () => {
    const before = await bodyOf(lastReplyRow());
    await page.getByTestId('chat-continue').click();
    // The committed continuation is a second step of the turn: ‹ 2 / 2 › once it is in.
    await expect.poll(() => lastReplyRow().getByTestId('step-position').textContent(), POLL).toBe('2 / 2');
    const after = await bodyOf(lastReplyRow());
    expect(after.startsWith(before)).toBe(true);
    expect(after).toMatch(/回复\d+：莉娅点亮了灯笼。$/);
    const last = (await messages()).at(-1);
    expect({ reply: last?.reply, step: last?.step, continuedFrom: last?.continuedFrom }).toEqual({ reply: after, step: 1, continuedFrom: 0 });
  });

  it('stops a reply mid-stream: nothing is committed and the line goes back to the input box', async () => {
    const committedBefore = (await events()).filter((e) => e.type === 'kernel/turn-committed').length;
    const upstreamClosed = fx.fake.holdNextStream();
    await page.getByTestId('chat-input').fill('停下来。');
    await page.getByTestId('chat-input').press('Enter');
    const streaming = page.getByTestId('reply-streaming');
    // The model server sent its first piece and holds the rest: the reply is mid-stream.
    await expect.poll(async () => (await streaming.locator('.message-body').textContent()) ?? '', POLL).toMatch(/^回复/);
    expect(await page.getByTestId('chat-input').inputValue()).toBe('');

    await page.getByTestId('chat-stop').click();
    await upstreamClosed; // the server cancelled the model call
    await page.getByTestId('chat-stopped').waitFor();
    expect(await page.getByTestId('chat-input').inputValue()).toBe('停下来。');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('chat-input');
    expect(await page.getByTestId('reply-streaming').count()).toBe(0);
    expect(await page.getByTestId('reply').count()).toBe(2);

    // Send the restored line: turns of a session run one at a time, so once this one is shown the
    // stopped one has ended — and the log holds one commit of the line, the resent one.
    await page.getByTestId('chat-input').press('Enter');
    await expect.poll(() => page.getByTestId('reply').count(), POLL).toBe(3);
    const committed = (await events()).filter((e) => e.type === 'kernel/turn-committed');
    expect(committed.length).toBe(committedBefore + 1);
    expect(committed.filter((e) => e.data.input === '停下来。')).toHaveLength(1);
    expect((await messages()).map((m) => m.input)).toEqual(['第一句。', '第二句（改）。', '停下来。']);

    // Stopping a regeneration keeps the reply that was there, with no new step.
    const kept = await bodyOf(lastReplyRow());
    const regenerationClosed = fx.fake.holdNextStream();
    await lastReplyRow().getByTestId('reply-regenerate').click();
    await expect.poll(async () => (await streaming.locator('.message-body').textContent()) ?? '', POLL).toMatch(/^回复/);
    await page.getByTestId('chat-stop').click();
    await regenerationClosed;
    await page.getByTestId('chat-stopped').waitFor();
    expect(await bodyOf(lastReplyRow())).toBe(kept);
    expect(await lastReplyRow().getByTestId('step-position').textContent()).toBe('1 / 1');
  });

  it('an editor opened before a reply started cannot save while the reply streams; it keeps its text and saves once the reply is stopped', async () => {
    // Pinned by position: once the new line is sent, the last exchange is the streaming one.
    const row = page.locator('.messages > .exchange').nth((await page.locator('.messages > .exchange').count()) - 1).getByTestId('reply-row');
    const original = await bodyOf(row);
    const editsBefore = (await events()).filter((e) => e.type === 'kernel/turn-edited').length;
    await row.getByTestId('msg-edit').click();
    await row.getByTestId('msg-edit-text').fill('流式时的修改。');
    const upstreamClosed = fx.fake.holdNextStream();
    await page.getByTestId('chat-input').fill('边改边发。');
    await page.getByTestId('chat-input').press('Enter');
    await expect.poll(async () => (await page.getByTestId('reply-streaming').locator('.message-body').textContent()) ?? '', POLL).toMatch(/^回复/);

    await row.getByTestId('msg-edit-save').click();
    await expect.poll(() => row.getByTestId('msg-edit-error').textContent(), POLL).toContain('A reply is being written');
    expect(await row.getByTestId('msg-edit-text').inputValue()).toBe('流式时的修改。');
    expect((await events()).filter((e) => e.type === 'kernel/turn-edited')).toHaveLength(editsBefore);

    await page.getByTestId('chat-stop').click();
    await upstreamClosed;
    await page.getByTestId('chat-stopped').waitFor();
    await row.getByTestId('msg-edit-save').click();
    await expect.poll(() => bodyOf(row), POLL).toBe('流式时的修改。');
    expect(original).not.toBe('流式时的修改。');
    expect((await events()).filter((e) => e.type === 'kernel/turn-edited')).toHaveLength(editsBefore + 1);
    await page.getByTestId('chat-input').fill('');
  });

  it("switching session while a reply streams stops it, and the line is back in its session's box on return", async () => {
    // Another session to switch to, in the picker (it is read when the page loads).
    await playTurn(fx.server.url, 'elsewhere', '别处的一句。');
    await page.reload();
    await page.getByTestId('reply').first().waitFor();
    const committedBefore = (await events()).filter((e) => e.type === 'kernel/turn-committed').length;
    const upstreamClosed = fx.fake.holdNextStream();
    await page.getByTestId('chat-input').fill('换会话前。');
    await page.getByTestId('chat-input').press('Enter');
    await expect.poll(async () => (await page.getByTestId('reply-streaming').locator('.message-body').textContent()) ?? '', POLL).toMatch(/^回复/);
    await page.getByTestId('session-select').selectOption('elsewhere');
    await upstreamClosed; // leaving stopped the turn: the server cancelled the model call
    expect(await page.getByTestId('chat-input').inputValue()).toBe('');
    await page.getByTestId('session-select').selectOption(SESSION);
    await expect.poll(() => page.getByTestId('chat-input').inputValue(), POLL).toBe('换会话前。');
    expect((await events()).filter((e) => e.type === 'kernel/turn-committed')).toHaveLength(committedBefore);
    await page.getByTestId('chat-input').fill('');
  });

  it('copies a message, keeps Shift+Enter as a new line, swipes with ← →, labels every button and shows keyboard focus', async () => {
    // The chat was just opened again (the session switch before): wait until it shows the last reply.
    const reply = (await messages()).at(-1)?.reply ?? '';
    await expect.poll(() => bodyOf(lastReplyRow()), POLL).toBe(reply);
    await lastReplyRow().getByTestId('msg-copy').click();
    await expect.poll(() => lastReplyRow().getByTestId('msg-copied').textContent(), POLL).toContain('已复制');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(reply);

    const input = page.getByTestId('chat-input');
    await input.fill('');
    await input.press('a');
    await input.press('Shift+Enter');
    await input.press('b');
    expect(await input.inputValue()).toBe('a\nb');
    expect(await page.getByTestId('reply').count()).toBe(3);
    await input.fill('');

    // In the empty box → on the last step generates a new reply and ← swipes back, as in SillyTavern.
    await input.press('ArrowRight');
    await expect.poll(() => lastReplyRow().getByTestId('step-position').textContent(), POLL).toBe('2 / 2');
    await input.press('ArrowLeft');
    await expect.poll(() => lastReplyRow().getByTestId('step-position').textContent(), POLL).toBe('1 / 2');
    expect(await bodyOf(lastReplyRow())).toBe(reply);

    // Every button of the chat has a name; glyph-only ones (‹ › ↻ ✎ …) carry an aria-label.
    const unnamed = await page.locator('.chat button').evaluateAll((buttons) =>
      buttons
        .filter((b) => {
          const text = (b.textContent ?? '').trim();
          const label = b.getAttribute('aria-label') ?? '';
          return !/\p{L}/u.test(text) && label.trim() === '';
        })
        .map((b) => b.outerHTML),
    );
    expect(unnamed).toEqual([]);
    expect(await page.locator('.chat button.tool').count()).toBeGreaterThan(10);

    await input.focus();
    await page.keyboard.press('Tab'); // Send is disabled (empty input): focus goes to Continue
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement;
      const style = getComputedStyle(element);
      return { testId: element.dataset.testid, outline: style.outlineStyle, width: style.outlineWidth };
    });
    expect(focused).toEqual({ testId: 'chat-continue', outline: 'solid', width: '2px' });
  });

  it('branches a new chat from an earlier reply: it opens with the chat up to there, and the old chat keeps all of it', async () => {
    const parent = 'controls-branch';
    const lines = () => page.getByTestId('user-line').locator('.message-body').allTextContents();
    // A page of its own: a hash change alone does not switch an open page's session.
    page = await fx.browser.context.newPage();
    await page.goto(`${fx.server.url}/#session=${parent}`);
    for (const line of ['分支前一。', '分支前二。', '分支后。']) await sendWithEnter(line);
    const exchanges = page.locator('.messages > .exchange');
    await exchanges.nth(1).getByTestId('reply-row').getByTestId('reply-branch').click();
    // The page switches to the new session, which shows the first two exchanges only.
    await expect.poll(() => page.evaluate(() => location.hash), POLL).toMatch(/^#session=branch-[0-9a-f]{12}$/);
    await expect.poll(() => lines(), POLL).toEqual(['分支前一。', '分支前二。']);
    const branch = (await page.evaluate(() => location.hash)).slice('#session='.length);
    // Playing on in the branch leaves the old chat as it was.
    await sendWithEnter('分支里的新一句。');
    const inputsOf = async (id: string) => ((await (await fetch(`${fx.server.url}/api/sessions/${id}/messages`)).json()) as { messages: Message[] }).messages.map((m) => m.input);
    expect(await inputsOf(branch)).toEqual(['分支前一。', '分支前二。', '分支里的新一句。']);
    expect(await inputsOf(parent)).toEqual(['分支前一。', '分支前二。', '分支后。']);
    // The old chat is one pick away in the session list.
    await page.getByTestId('session-select').selectOption(parent);
    await expect.poll(() => lines(), POLL).toEqual(['分支前一。', '分支前二。', '分支后。']);
  });
});
