import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { api } from '../api.js';
import type { StorySummary, StoryWorkspace } from '../../../src/wire/story.js';
import { StoryEditor } from './StoryEditor.js';
import { useWorkspace } from './use-workspace.js';

interface Props {
  readonly sessionId: string;
  readonly selectedStoryId: string | null;
  readonly onSelectionChange: () => void;
  readonly turnCount: number;
}

/** 「故事工程」: list, create, open, delete, enable for the current session, clear. */
export function StoryPanel({ sessionId, selectedStoryId, onSelectionChange, turnCount }: Props) {
  const [stories, setStories] = useState<readonly StorySummary[]>([]);
  const [openId, setOpenId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [form, setForm] = useState({ id: '', name: '' });

  const refresh = useCallback(() => {
    api<{ stories: StorySummary[] }>('GET', '/api/stories').then((r) => setStories(r.stories), (e: Error) => setError(e.message));
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: turnCount triggers a refresh
  useEffect(() => {
    refresh();
  }, [refresh, turnCount]);
  useEffect(() => {
    if (openId === null && selectedStoryId) setOpenId(selectedStoryId);
  }, [openId, selectedStoryId]);

  const editor = useWorkspace(openId, turnCount, refresh);

  const act = async (run: () => Promise<unknown>) => {
    setError(null);
    try {
      await run();
      return true;
    } catch (e) {
      setError((e as Error).message);
      return false;
    }
  };
  const create = async (event: FormEvent) => {
    event.preventDefault();
    const ok = await act(() => api<StoryWorkspace>('POST', '/api/stories', { id: form.id.trim(), name: form.name.trim() }));
    if (ok) {
      setOpenId(form.id.trim());
      setForm({ id: '', name: '' });
      refresh();
    }
  };
  const remove = async (story: StorySummary) => {
    if (!confirm(`删除故事工程「${story.name}」及其全部文件？Delete "${story.name}" and all its files?`)) return;
    if (await act(() => api('DELETE', `/api/stories/${story.id}?baseRevision=${story.revision ?? 0}`))) {
      if (openId === story.id) setOpenId(null);
      if (selectedStoryId === story.id) await act(() => api('DELETE', `/api/sessions/${sessionId}/story`));
      onSelectionChange();
      refresh();
    }
  };
  const enable = async (id: string) => {
    if (await act(() => api('PUT', `/api/sessions/${sessionId}/story`, { storyId: id }))) onSelectionChange();
  };
  const clear = async () => {
    if (await act(() => api('DELETE', `/api/sessions/${sessionId}/story`))) onSelectionChange();
  };

  return (
    <div className="story-panel" data-testid="story-panel">
      <p className="hint muted">
        故事工程把跨回合的剧情资料保存为可编辑的 Markdown。为当前会话启用后，每回合先运行多人物写作流水线。清除后恢复普通角色流程，文件仍保留。
      </p>
      {error && (
        <p className="error-box" role="alert">
          {error}
        </p>
      )}
      <ul className="story-list" data-testid="story-list">
        {stories.length === 0 && <li className="muted">还没有故事工程。No story workspaces yet.</li>}
        {stories.map((s) => (
          <li key={s.id} className={s.id === openId ? 'open' : ''} data-testid={`story-${s.id}`}>
            <button type="button" className="link" onClick={() => setOpenId(s.id)}>
              <strong>{s.name}</strong> <code className="muted">{s.id}</code>
            </button>
            <span className="muted small">
              {s.characters} 人物 · {s.sections} 分区 · {s.sources} 资料
            </span>
            {s.problem && <span className="error-text small">{s.problem}</span>}
            <span className="row">
              {selectedStoryId === s.id ? (
                <>
                  <span className="badge ok" data-testid="enabled-badge">
                    已启用 enabled
                  </span>
                  <button type="button" className="secondary" data-testid="clear-story" onClick={() => void clear()}>
                    清除 Clear
                  </button>
                </>
              ) : (
                <button type="button" data-testid={`enable-${s.id}`} onClick={() => void enable(s.id)}>
                  为当前会话启用 Enable
                </button>
              )}
              <button type="button" className="danger" data-testid={`delete-${s.id}`} onClick={() => void remove(s)}>
                删除 Delete
              </button>
            </span>
          </li>
        ))}
      </ul>
      <form className="add-form" onSubmit={create}>
        <strong>新建 New</strong>
        <input
          data-testid="new-story-id"
          placeholder="id，如 fog-harbor"
          value={form.id}
          onChange={(e) => setForm({ ...form, id: e.target.value })}
          pattern="[a-z0-9][a-z0-9_\-]{0,63}"
          title="a-z、0-9、_ 和 -，1–64 个字符"
          required
        />
        <input data-testid="new-story-name" placeholder="名称 Name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required />
        <button type="submit" data-testid="create-story">
          新建 Create
        </button>
      </form>
      {editor.ws && openId && <StoryEditor key={openId} editor={editor} ws={editor.ws} />}
    </div>
  );
}
