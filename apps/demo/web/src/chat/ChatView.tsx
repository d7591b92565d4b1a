import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiFailure, api, playTurn, type TurnHandlers } from '../api.js';
import type { ChatView as LibraryChat } from '../../../src/wire/library.js';
import { useTokenCounts } from '../prompt/use-token-counts.js';
import type { BranchView, ChatExchange } from '../../../src/wire/chat.js';
import type { PreparedMessage, TurnResultView } from '../../../src/wire/turn-stream.js';
import { ChatHeader } from './ChatHeader.js';
import { branchFrom, continueReply, editTurn, loadMessages, regenerateReply, removeTurnsFrom, selectStep } from './chat-controls-api.js';
import { ExchangeView } from './ExchangeView.js';
import { type FailedTurn, failedTurnOf, retryTurnId } from './failed-turn.js';
import { GreetingMessage } from './GreetingMessage.js';
import { type PendingReply, StreamingExchange } from './StreamingExchange.js';
import './chat-controls.css';
import { StageList } from './StageList.js';
import { useReplyStream } from './use-reply-stream.js';
import { useLiveSessionVersion } from './use-live-session.js';

interface Props {
  readonly sessionId: string;
  readonly storyId: string | null;
  readonly onTurn: () => void;
  /** The library chat behind this session, or null for a plain session (the example character). */
  readonly chat: LibraryChat | null;
  readonly onChatChange: (chat: LibraryChat) => void;
  /** True while the offline simulation answers (no model server): said plainly in the chat. */
  readonly offline: boolean;
  /** Changes when the preset or persona lists may have changed (the header reloads them). */
  readonly libraryVersion: number;
  /** A branch of this chat was made: the page switches to it. */
  readonly onBranched: (branch: BranchView) => Promise<void>;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

// Lines whose turn was stopped because the player switched session before it was saved, by the
// session they were sent in: they go back into that session's box when the player returns.
const unsentLines = new Map<string, string>();

/**
 * The chat: past exchanges with their controls (swipe, regenerate, edit, delete, copy), the running
 * turn with streamed stage progress and reply, and the input with Send, Continue and Stop.
 */
export function ChatView({ sessionId, storyId, onTurn, chat, onChatChange, offline, libraryVersion, onBranched }: Props) {
  const [exampleSpeaker, setSpeaker] = useState('');
  const speaker = chat?.character?.displayName ?? exampleSpeaker;
  const [messages, setMessages] = useState<readonly ChatExchange[]>([]);
  const stream = useReplyStream(sessionId);
  const { pending } = stream;
  // Refetched whenever the messages change (a turn, swipe, edit or delete).
  const tokenCounts = useTokenCounts(sessionId, messages);
  // A swipe, edit or delete on its way to the server: the other controls wait for it.
  const [controlBusy, setControlBusy] = useState(false);
  // The session on screen: a control that finishes after the player switched away must not
  // write the old session's chat into the new one.
  const shownSession = useRef(sessionId);
  const [prepared, setPrepared] = useState<readonly PreparedMessage[] | null>(null);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const endRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  // The last send that failed before its commit: sending its line unchanged retries that turn.
  const failedTurn = useRef<FailedTurn | null>(null);

  useEffect(() => {
    // The character's name comes from the server's composition, not from the UI.
    api<{ characterName?: string }>('GET', '/api/health').then(
      (r) => {
        if (r.characterName) setSpeaker(r.characterName);
      },
      () => {},
    );
  }, []);

  useEffect(() => {
    setPrepared(null);
    setError(null);
    shownSession.current = sessionId;
    // A line sent here that leaving the session stopped goes back into the box on return.
    const unsent = unsentLines.get(sessionId);
    if (unsent !== undefined) {
      unsentLines.delete(sessionId);
      setText((now) => (now.trim() === '' ? unsent : `${unsent}\n${now}`));
    }
    loadMessages(sessionId).then(setMessages, (e: unknown) => {
      setMessages([]);
      if (!(e instanceof ApiFailure && e.status === 404)) setError(message(e));
    });
  }, [sessionId]);

  // A turn another server ran on this session (PostgreSQL storage): re-read the messages, unless
  // this chat's own turn is running (its result is added when it ends).
  const liveVersion = useLiveSessionVersion(sessionId);
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new announcement triggers the re-read
  useEffect(() => {
    if (liveVersion === 0 || pending) return;
    const shown = sessionId;
    loadMessages(sessionId).then(
      (list) => {
        if (shownSession.current === shown) setMessages(list);
      },
      () => {},
    );
  }, [liveVersion]);

  // Scroll whenever new content arrives. Braces matter: newer browsers return a Promise from
  // scrollIntoView, and an effect must not return one.
  // biome-ignore lint/correctness/useExhaustiveDependencies: messages, pending and stages trigger the scroll
  useEffect(() => {
    endRef.current?.scrollIntoView({ block: 'end' });
  }, [messages, pending, stream.stages]);

  /** Re-reads the chat from the server: after any change it shows exactly what the actor will see. */
  const reload = async () => {
    const list = await loadMessages(sessionId);
    if (shownSession.current === sessionId) setMessages(list);
  };

  /**
   * Streams a turn, regenerate or continue. Stop aborts it: the connection closes, the server
   * cancels the run and nothing is committed; `onNotCommitted` then runs in the same render.
   */
  const runStream = (start: PendingReply, call: (handlers: TurnHandlers, signal: AbortSignal) => Promise<TurnResultView>, onNotCommitted?: (error: unknown) => void, onLeft?: () => void) => {
    // Any run changes what a failed turn's prepared draft was written against: no retry after it.
    failedTurn.current = null;
    setError(null);
    setPrepared(null);
    return stream.run(start, call, {
      ...(onLeft ? { onLeft } : {}),
      onCommitted: async (result, afterCommit) => {
        await reload().catch((e: unknown) => setError(message(e)));
        if (shownSession.current !== sessionId) return;
        if (result) setPrepared(result.prepared.history);
        if (afterCommit !== undefined) setError(`回复已保存，之后的工作出错 · The reply is saved; the work after it failed: ${message(afterCommit)}`);
        onTurn();
      },
      onNotCommitted: (e) => {
        onNotCommitted?.(e);
        if (e !== undefined) setError(message(e));
        void reload().catch(() => {});
      },
    });
  };

  const busy = pending !== null || controlBusy;

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const input = text.trim();
    if (!input || busy) return;
    const sentIn = sessionId;
    const retryOf = retryTurnId(failedTurn.current, sessionId, input);
    setText('');
    await runStream(
      { kind: 'turn', turnId: null, input, reply: '' },
      (handlers, signal) => playTurn(sessionId, input, handlers, signal, retryOf),
      // Stopped or failed: nothing was committed, so the line goes back to the box (before anything typed meanwhile).
      // A failure (not a Stop) is remembered: sent again unchanged, it replays what the turn prepared.
      (e) => {
        failedTurn.current = failedTurnOf(e, sentIn, input);
        setText((now) => (now.trim() === '' ? input : `${input}\n${now}`));
        inputRef.current?.focus(); // Enter sends it again
      },
      // The player switched session meanwhile, which stopped the turn: the line waits for them there.
      () => unsentLines.set(sentIn, input),
    );
  };

  const regenerate = (exchange: ChatExchange) => {
    if (busy) return;
    void runStream({ kind: 'regenerate', turnId: exchange.turnId, input: exchange.input, reply: '' }, (handlers, signal) => regenerateReply(sessionId, exchange.turnId, handlers, signal));
  };

  const continueLast = () => {
    const last = messages.at(-1);
    if (!last || busy) return;
    void runStream({ kind: 'continue', turnId: last.turnId, input: last.input, reply: last.reply }, (handlers, signal) => continueReply(sessionId, handlers, signal));
  };

  /** Runs a swipe, edit or delete; resolves with why the server refused it, or null when it is done. */
  const attempt = async (change: () => Promise<void>): Promise<string | null> => {
    // A swipe, edit or delete changes the chat a failed turn's draft was prepared against.
    failedTurn.current = null;
    setControlBusy(true);
    setError(null);
    stream.clearStopped();
    try {
      await change();
      onTurn();
      return null;
    } catch (e) {
      await reload().catch(() => {});
      return message(e);
    } finally {
      setControlBusy(false);
    }
  };

  /** {@link attempt}, with a refusal shown under the chat. */
  const control = async (change: () => Promise<void>): Promise<void> => {
    const refused = await attempt(change);
    if (refused !== null) setError(refused);
  };

  const replaceTurn = (turn: ChatExchange) => setMessages((list) => list.map((m) => (m.turnId === turn.turnId ? turn : m)));

  const swipeStep = (exchange: ChatExchange, step: number) => {
    if (busy || step === exchange.step) return;
    void control(async () => replaceTurn(await selectStep(sessionId, exchange.turnId, step)));
  };

  // Resolves with why the edit was refused, which the editor shows where the player is looking
  // (the box under the chat may be scrolled far away from it), or null when it is saved.
  const edit = async (exchange: ChatExchange, change: { readonly input?: string; readonly reply?: string }): Promise<string | null> => {
    // An editor opened before the reply started must not change the chat the reply is written
    // from: the edit waits (the editor keeps its text) until the reply is saved or stopped.
    if (busy) return '正在生成回复，请稍后保存。A reply is being written: save your edit once it is done.';
    return attempt(async () => replaceTurn(await editTurn(sessionId, exchange.turnId, { step: exchange.step, ...change })));
  };

  const remove = (exchange: ChatExchange, fromReply: boolean) => {
    if (busy) return;
    void control(async () => {
      await removeTurnsFrom(sessionId, exchange.turnId);
      setPrepared(null);
      await reload();
      // Deleting from a reply keeps the player's line: it goes back to the box, unless a draft is there.
      if (fromReply) setText((now) => (now.trim() === '' ? exchange.input : now));
      inputRef.current?.focus();
    });
  };

  const branch = (exchange: ChatExchange) => {
    if (busy) return;
    void control(async () => {
      await onBranched(await branchFrom(sessionId, exchange.turnId));
    });
  };

  /** ← / → in the empty input swipe the last reply, as in SillyTavern (→ on its last step generates a new one). */
  const swipeLast = (direction: -1 | 1) => {
    const last = messages.at(-1);
    if (!last || busy) return;
    const target = last.steps[last.steps.findIndex((candidate) => candidate.step === last.step) + direction];
    if (target) swipeStep(last, target.step);
    else if (direction === 1) regenerate(last);
  };

  const swipe = async (greetingIndex: number) => {
    if (!chat) return;
    try {
      onChatChange(await api<LibraryChat>('PATCH', `/api/chats/${chat.id}`, { greetingIndex }));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };

  return (
    <section className="chat" aria-label="对话 Chat">
      {chat && <ChatHeader chat={chat} onChange={onChatChange} libraryVersion={libraryVersion} />}
      {offline && (
        <p className="offline-note small" data-testid="offline-note">
          离线模拟正在回答（不是语言模型）——在“模型 Model”里设置你的模型服务器。The offline simulation is answering, not a language model: set your model server under “Model”.
        </p>
      )}
      <div className="chat-status muted">
        {storyId ? (
          <>
            故事工程已启用：<strong data-testid="chat-story">{storyId}</strong>
          </>
        ) : (
          '未启用故事工程（普通角色流程）· No story workspace enabled'
        )}
      </div>
      {stream.toolsNotice && (
        <p className="error-box" role="status" data-testid="director-notice">
          {stream.toolsNotice}
        </p>
      )}
      <div className="messages" data-testid="messages">
        {chat && <GreetingMessage speaker={speaker} greetings={chat.greetings} index={chat.greetingIndex} onSwipe={(index) => void swipe(index)} />}
        {messages.length === 0 && !pending && !chat && <p className="empty muted">和 {speaker} 说点什么吧。Say something to {speaker}.</p>}
        {messages.map((m, index) =>
          pending && pending.turnId === m.turnId ? (
            <StreamingExchange key={m.turnId} pending={pending} speaker={speaker} />
          ) : (
            <ExchangeView
              key={m.turnId}
              exchange={m}
              sessionId={sessionId}
              tokens={tokenCounts.get(m.turnId)?.step === m.step ? tokenCounts.get(m.turnId) : undefined}
              speaker={speaker}
              isLast={index === messages.length - 1}
              fromHereOn={messages.length - index}
              busy={busy}
              onSwipe={(step) => swipeStep(m, step)}
              onRegenerate={() => regenerate(m)}
              onEdit={(change) => edit(m, change)}
              onDelete={(fromReply) => remove(m, fromReply)}
              onBranch={() => branch(m)}
            />
          ),
        )}
        {pending && pending.turnId === null && <StreamingExchange pending={pending} speaker={speaker} />}
        <StageList rows={stream.stages} notes={stream.notes} />
        {prepared && (
          <details className="prepared" data-testid="prepared">
            <summary>演员收到的消息 Prepared messages ({prepared.length})</summary>
            {prepared.map((m, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list; the position is the message's identity
              <div key={`${i}-${m.role}`} className="prepared-message">
                <span className="role">{m.role}</span>
                <pre>{m.content}</pre>
              </div>
            ))}
          </details>
        )}
        <div ref={endRef} />
      </div>
      {error && (
        <p className="error-box" role="alert">
          {error}
        </p>
      )}
      {stream.stopped && (
        <p className="muted small" role="status" data-testid="chat-stopped">
          已停止：这次回复没有保存。Stopped: nothing from this reply was saved.
        </p>
      )}
      <form className="composer" onSubmit={send}>
        <textarea
          ref={inputRef}
          data-testid="chat-input"
          aria-label="你的话 Your line (Enter sends, Shift+Enter adds a line; in the empty box ← → swipe the last reply)"
          value={text}
          placeholder="输入你的话……（Enter 发送，Shift+Enter 换行，空白时 ← → 切换回复）"
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              e.currentTarget.form?.requestSubmit();
            } else if ((e.key === 'ArrowLeft' || e.key === 'ArrowRight') && text === '' && !(e.shiftKey || e.altKey || e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              swipeLast(e.key === 'ArrowLeft' ? -1 : 1);
            }
          }}
          rows={3}
        />
        <div className="composer-buttons">
          <button type="submit" data-testid="chat-send" title="发送 Send (Enter)" disabled={busy || text.trim() === ''}>
            {pending ? '进行中…' : '发送 Send'}
          </button>
          {pending ? (
            <button
              type="button"
              className="danger"
              data-testid="chat-stop"
              // Once the reply is saved only the work after it runs: Stop would undo nothing, so it waits.
              disabled={pending.committed === true}
              title={pending.committed ? '已保存，正在完成后续工作 Saved; finishing the work after it' : '停止 Stop: nothing of this reply is saved'}
              onClick={stream.stop}
            >
              {pending.committed ? '已保存 Saved…' : '■ 停止 Stop'}
            </button>
          ) : (
            <button type="button" className="secondary" data-testid="chat-continue" title="继续 Continue the last reply" disabled={busy || messages.length === 0} onClick={continueLast}>
              继续 Continue
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
