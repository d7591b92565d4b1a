import { useCallback, useEffect, useState } from 'react';
import { api } from './api.js';
import { ChatView } from './chat/ChatView.js';
import { DioPanel } from './dio/DioPanel.js';
import { initialSessionId, newSessionId, rememberSessionId } from './session-id.js';
import { StoryPanel } from './story/StoryPanel.js';
import type { SessionSummary } from './types.js';

type SideTab = 'story' | 'dio';

/** The demo page: the chat on the left, the story workspace panel and the DIO view in the side bar. */
export function App() {
  const [sessionId, setSessionId] = useState(initialSessionId);
  const [sessions, setSessions] = useState<readonly SessionSummary[]>([]);
  const [tab, setTab] = useState<SideTab>('story');
  // Bumped after every turn so the side panels refresh what the turn changed.
  const [turnCount, setTurnCount] = useState(0);
  const [storyId, setStoryId] = useState<string | null>(null);

  useEffect(() => {
    rememberSessionId(sessionId);
  }, [sessionId]);

  const refreshSessions = useCallback(() => {
    api<{ sessions: SessionSummary[] }>('GET', '/api/sessions').then((r) => setSessions(r.sessions), () => {});
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

  const known = sessions.some((s) => s.id === sessionId);
  return (
    <div className="app">
      <header className="topbar">
        <h1>
          Troupe <span className="muted">演示 Demo</span>
        </h1>
        <label className="session-picker">
          会话 Session
          <select data-testid="session-select" value={sessionId} onChange={(e) => setSessionId(e.target.value)}>
            {!known && <option value={sessionId}>{sessionId}（新 new）</option>}
            {sessions.map((s) => (
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
      </header>
      <main className="layout">
        <ChatView sessionId={sessionId} storyId={storyId} onTurn={onTurn} />
        <aside className="side">
          <div className="tabs" role="tablist">
            <button type="button" role="tab" aria-selected={tab === 'story'} onClick={() => setTab('story')}>
              故事工程 Story
            </button>
            <button type="button" role="tab" aria-selected={tab === 'dio'} onClick={() => setTab('dio')}>
              DIO 长期要求
            </button>
          </div>
          {tab === 'story' ? (
            <StoryPanel sessionId={sessionId} selectedStoryId={storyId} onSelectionChange={refreshSelection} turnCount={turnCount} />
          ) : (
            <DioPanel sessionId={sessionId} turnCount={turnCount} />
          )}
        </aside>
      </main>
    </div>
  );
}
