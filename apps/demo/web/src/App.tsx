import { useCallback, useEffect, useState } from 'react';
import { api } from './api.js';
import { ChatView } from './chat/ChatView.js';
import { DioPanel } from './dio/DioPanel.js';
import { LorePanel } from './lore/LorePanel.js';
import { CharactersView } from './library/CharactersView.js';
import type { ChatView as LibraryChat } from '../../src/wire/library.js';
import { ModelSettingsView } from './library/ModelSettingsView.js';
import { PersonasView } from './library/PersonasView.js';
import { PresetsView } from './library/PresetsView.js';
import { initialSessionId, newSessionId, rememberSessionId } from './session-id.js';
import { StoryPanel } from './story/StoryPanel.js';
import { ThemeToggle } from './theme/ThemeToggle.js';
import type { BranchView, SessionSummary } from '../../src/wire/chat.js';

type SideTab = 'story' | 'dio' | 'lore';
type View = 'chat' | 'characters' | 'presets' | 'personas' | 'model';

const VIEWS: readonly { id: View; label: string }[] = [
  { id: 'chat', label: '对话 Chat' },
  { id: 'characters', label: '角色 Characters' },
  { id: 'presets', label: '预设 Presets' },
  { id: 'personas', label: '人设 Personas' },
  { id: 'model', label: '模型 Model' },
];

/** The demo page: the chat on the left, the story workspace panel and the DIO view in the side bar. */
export function App() {
  const [sessionId, setSessionId] = useState(initialSessionId);
  const [sessions, setSessions] = useState<readonly SessionSummary[]>([]);
  const [tab, setTab] = useState<SideTab>('story');
  // Bumped after every turn so the side panels refresh what the turn changed.
  const [turnCount, setTurnCount] = useState(0);
  const [storyId, setStoryId] = useState<string | null>(null);
  const [view, setView] = useState<View>('chat');
  const [chats, setChats] = useState<readonly LibraryChat[]>([]);
  const [offline, setOffline] = useState(false);
  // Bumped whenever the chat comes back into view: presets or personas may have changed meanwhile.
  const [libraryVersion, setLibraryVersion] = useState(0);
  useEffect(() => {
    if (view === 'chat') setLibraryVersion((n) => n + 1);
  }, [view]);

  useEffect(() => {
    rememberSessionId(sessionId);
  }, [sessionId]);

  const refreshSessions = useCallback(() => {
    api<{ sessions: SessionSummary[] }>('GET', '/api/sessions').then((r) => setSessions(r.sessions), () => {});
    api<{ chats: LibraryChat[] }>('GET', '/api/chats').then((r) => setChats(r.chats), () => {});
    api<{ offline?: boolean }>('GET', '/api/health').then((r) => setOffline(r.offline === true), () => {});
  }, []);
  const refreshSelection = useCallback(() => {
    api<{ storyId: string | null }>('GET', `/api/sessions/${sessionId}/story`).then((r) => setStoryId(r.storyId), () => setStoryId(null));
  }, [sessionId]);
  useEffect(() => {
    refreshSessions();
    refreshSelection();
  }, [refreshSessions, refreshSelection]);

  const onTurn = useCallback(() => {
    setTurnCount((n) => n + 1);
    refreshSessions();
  }, [refreshSessions]);

  const chat = chats.find((c) => c.id === sessionId) ?? null;
  const known = sessions.some((s) => s.id === sessionId) || chat !== null;
  const plainSessions = sessions.filter((s) => !chats.some((c) => c.id === s.id));
  const onChatChange = (next: LibraryChat) => setChats((list) => list.map((c) => (c.id === next.id ? next : c)));
  // A branch opens at once; a library chat's copy is fetched first so the chat header shows it.
  const onBranched = async (branch: BranchView) => {
    if (branch.chatId !== null) {
      const copy = await api<LibraryChat>('GET', `/api/chats/${branch.chatId}`);
      setChats((list) => [copy, ...list.filter((c) => c.id !== copy.id)]);
    }
    setSessionId(branch.sessionId);
    setView('chat');
    refreshSessions();
  };
  const onChatStarted = (next: LibraryChat) => {
    setChats((list) => [next, ...list]);
    setSessionId(next.id);
    setView('chat');
    // A chat created with a story workspace has it enabled already.
    setStoryId(next.storyId);
  };
  return (
    <div className="app">
      <header className="topbar">
        <h1>
          Troupe <span className="muted">演示 Demo</span>
        </h1>
        <nav className="views" aria-label="views">
          {VIEWS.map((v) => (
            <button key={v.id} type="button" data-testid={`view-${v.id}`} aria-pressed={view === v.id} onClick={() => setView(v.id)}>
              {v.label}
            </button>
          ))}
        </nav>
        <label className="session-picker">
          会话 Session
          <select
            data-testid="session-select"
            value={sessionId}
            onChange={(e) => {
              setSessionId(e.target.value);
              setView('chat');
            }}
          >
            {!known && <option value={sessionId}>{sessionId}（新 new）</option>}
            {chats.length > 0 && (
              <optgroup label="角色对话 Chats">
                {chats.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.title} · {c.persona?.name ?? '?'}
                  </option>
                ))}
              </optgroup>
            )}
            {plainSessions.map((s) => (
              <option key={s.id} value={s.id}>
                {s.id} · {s.turns} 回合{s.storyId ? ` · ${s.storyId}` : ''}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => setSessionId(newSessionId())}>
          新会话 New session
        </button>
        {known && (
          <a className="button-link" href={`/api/sessions/${sessionId}/export`} download={`${sessionId}.jsonl`}>
            导出 Export
          </a>
        )}
        <ThemeToggle />
      </header>
      {view === 'characters' && (
        <main className="page">
          <CharactersView onChatStarted={onChatStarted} />
        </main>
      )}
      {view === 'presets' && (
        <main className="page">
          <PresetsView />
        </main>
      )}
      {view === 'personas' && (
        <main className="page">
          <PersonasView />
        </main>
      )}
      {view === 'model' && (
        <main className="page">
          <ModelSettingsView onSaved={refreshSessions} />
        </main>
      )}
      <main className="layout" hidden={view !== 'chat'}>
        <ChatView sessionId={sessionId} storyId={storyId} onTurn={onTurn} chat={chat} onChatChange={onChatChange} offline={offline} libraryVersion={libraryVersion} onBranched={onBranched} />
        <aside className="side">
          <div className="tabs" role="tablist">
            <button type="button" role="tab" aria-selected={tab === 'story'} onClick={() => setTab('story')}>
              故事工程 Story
            </button>
            <button type="button" role="tab" aria-selected={tab === 'dio'} onClick={() => setTab('dio')}>
              DIO 长期要求
            </button>
            <button type="button" role="tab" aria-selected={tab === 'lore'} onClick={() => setTab('lore')}>
              世界书 Lore
            </button>
          </div>
          {tab === 'story' ? (
            <StoryPanel sessionId={sessionId} selectedStoryId={storyId} onSelectionChange={refreshSelection} turnCount={turnCount} />
          ) : tab === 'dio' ? (
            <DioPanel sessionId={sessionId} turnCount={turnCount} />
          ) : (
            <LorePanel sessionId={sessionId} turnCount={turnCount} />
          )}
        </aside>
      </main>
    </div>
  );
}
