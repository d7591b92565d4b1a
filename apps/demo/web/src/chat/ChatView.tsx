import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiFailure, api, playTurn } from '../api.js';
import type { ChatView as LibraryChat } from '../library/library-types.js';
import type { ChatExchange, PreparedMessage } from '../types.js';
import { ChatHeader } from './ChatHeader.js';
import { GreetingMessage } from './GreetingMessage.js';
import { DIRECTOR_TOOLS_UNAVAILABLE, EVENT_NOTES, TOOLS_UNAVAILABLE_NOTICE } from './stage-names.js';
import { addStage, StageList, type StageRow } from './StageList.js';

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
}

interface Pending {
  readonly input: string;
  readonly reply: string;
  readonly reasoning?: string;
}

/** The chat: past exchanges, the running turn with streamed stage progress and reply, and the input. */
export function ChatView({ sessionId, storyId, onTurn, chat, onChatChange, offline, libraryVersion }: Props) {
  const [exampleSpeaker, setSpeaker] = useState('');
  const speaker = chat?.character?.displayName ?? exampleSpeaker;
  const [messages, setMessages] = useState<readonly ChatExchange[]>([]);
  const [pending, setPending] = useState<Pending | null>(null);
  const [stages, setStages] = useState<readonly StageRow[]>([]);
  const [notes, setNotes] = useState<readonly string[]>([]);
  // Shown once per chat and kept (not reset per turn): the player needs to see it, not every turn.
  const [toolsNotice, setToolsNotice] = useState<string | null>(null);
  const [prepared, setPrepared] = useState<readonly PreparedMessage[] | null>(null);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const endRef = useRef<HTMLDivElement>(null);

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
    setStages([]);
    setNotes([]);
    setToolsNotice(null);
    setPrepared(null);
    setError(null);
    api<{ messages: ChatExchange[] }>('GET', `/api/sessions/${sessionId}/messages`).then(
      (r) => setMessages(r.messages),
      (e: unknown) => {
        setMessages([]);
        if (!(e instanceof ApiFailure && e.status === 404)) setError(String((e as Error).message));
      },
    );
  }, [sessionId]);

  // Scroll whenever new content arrives. Braces matter: newer browsers return a Promise from
  // scrollIntoView, and an effect must not return one.
  // biome-ignore lint/correctness/useExhaustiveDependencies: messages, pending and stages trigger the scroll
  useEffect(() => {
    endRef.current?.scrollIntoView({ block: 'end' });
  }, [messages, pending, stages]);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const input = text.trim();
    if (!input || pending) return;
    setText('');
    setError(null);
    setStages([]);
    setNotes([]);
    setPrepared(null);
    setPending({ input, reply: '' });
    try {
      const result = await playTurn(sessionId, input, {
        onStage: (progress) => setStages((rows) => addStage(rows, progress)),
        onProgress: (type) => {
          if (type === DIRECTOR_TOOLS_UNAVAILABLE) setToolsNotice((shown) => shown ?? TOOLS_UNAVAILABLE_NOTICE);
          const note = EVENT_NOTES[type];
          if (note) setNotes((list) => [...list, note]);
        },
        onDelta: (delta) => setPending((p) => (p ? { ...p, reply: p.reply + delta } : p)),
        onReasoning: (delta) => setPending((p) => (p ? { ...p, reasoning: (p.reasoning ?? '') + delta } : p)),
      });
      setMessages((list) => [...list, { turnId: result.turnId, input, reply: result.reply, ...(result.reasoning ? { reasoning: result.reasoning } : {}) }]);
      setPrepared(result.prepared.history);
      onTurn();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setText(input); // nothing was lost: the player can send it again
    } finally {
      setPending(null);
    }
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
      {toolsNotice && (
        <p className="error-box" role="status" data-testid="director-notice">
          {toolsNotice}
        </p>
      )}
      <div className="messages" data-testid="messages">
        {chat && <GreetingMessage speaker={speaker} greetings={chat.greetings} index={chat.greetingIndex} onSwipe={(index) => void swipe(index)} />}
        {messages.length === 0 && !pending && !chat && <p className="empty muted">和 {speaker} 说点什么吧。Say something to {speaker}.</p>}
        {messages.map((m) => (
          <Exchange key={m.turnId} input={m.input} reply={m.reply} reasoning={m.reasoning} speaker={speaker} />
        ))}
        {pending && <Exchange input={pending.input} reply={pending.reply} reasoning={pending.reasoning} speaker={speaker} streaming />}
        <StageList rows={stages} notes={notes} />
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
      <form className="composer" onSubmit={send}>
        <textarea
          data-testid="chat-input"
          value={text}
          placeholder="输入你的话……（Enter 发送，Shift+Enter 换行）"
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              e.currentTarget.form?.requestSubmit();
            }
          }}
          rows={3}
        />
        <button type="submit" data-testid="chat-send" disabled={pending !== null || text.trim() === ''}>
          {pending ? '进行中…' : '发送 Send'}
        </button>
      </form>
    </section>
  );
}

// One exchange: the player's line and the reply. Per-message controls (regenerate, edit, …) go in
// here, keyed by the turn.
// A reasoning model's thinking sits above the reply, collapsed (as SillyTavern shows it).
function Exchange({ input, reply, reasoning, speaker, streaming = false }: { input: string; reply: string; reasoning?: string | undefined; speaker: string; streaming?: boolean }) {
  return (
    <>
      <div className="bubble user" data-testid="user-line">
        {input}
      </div>
      <div className={`bubble assistant${streaming ? ' streaming' : ''}`} data-testid={streaming ? 'reply-streaming' : 'reply'}>
        <span className="speaker">{speaker}</span>
        {reasoning && (
          <details className="reasoning" data-testid="reasoning">
            <summary>思考过程 Reasoning</summary>
            <pre>{reasoning}</pre>
          </details>
        )}
        {reply || (streaming ? '…' : '')}
      </div>
    </>
  );
}
