import { useCallback } from 'react';
import { ApiFailure, api } from '../api.js';
import { useLoaded } from '../use-loaded.js';
import type { FiredLoreEntry, LorebookList, LorebookSummary, SessionLore, SessionLorebooks } from '../../../src/wire/lore.js';

const REASONS: Readonly<Record<FiredLoreEntry['reason'], string>> = {
  key: '关键词 key',
  constant: '常驻 constant',
  sticky: '粘性 sticky',
  decorator: '@@activate',
};

/** What the panel shows: the library's books, this session's books and the fired entries. */
interface LoreState {
  readonly books: readonly LorebookSummary[];
  readonly session: SessionLorebooks;
  readonly lore: SessionLore;
}

function why(entry: FiredLoreEntry): string {
  const base = entry.reason === 'key' && entry.key ? `${REASONS.key} “${entry.key}”` : REASONS[entry.reason];
  return entry.recursion ? `${base} · 递归 recursion` : base;
}

/**
 * The world-info view: import and delete books, attach them to this session (the chat
 * character's own book always applies), and which entries fired on the last turn and why.
 */
export function LorePanel({ sessionId, turnCount }: { sessionId: string; turnCount: number }) {
  const fetchLore = useCallback(async (): Promise<LoreState> => {
    const [list, session, lore] = await Promise.all([
      api<LorebookList>('GET', '/api/lorebooks'),
      api<SessionLorebooks>('GET', `/api/sessions/${sessionId}/lorebooks`),
      api<SessionLore>('GET', `/api/sessions/${sessionId}/lore`),
    ]);
    return { books: list.lorebooks, session, lore };
  }, [sessionId]);
  const { value, error, show, act: run } = useLoaded(fetchLore, { reloadKey: turnCount, describeActionError: (e) => (e instanceof ApiFailure ? `${e.code}: ${e.message}` : String(e)) });
  const books = value?.books ?? [];
  const session = value?.session ?? null;
  const lore = value?.lore ?? null;

  const attachedIds = new Set(session?.attached.map((book) => book.id) ?? []);
  const toggle = (id: string, on: boolean) => {
    const lorebookIds = on ? [...attachedIds, id] : [...attachedIds].filter((x) => x !== id);
    // Shown at once; the reload after the save shows what the server kept.
    if (value) show({ ...value, session: { ...value.session, attached: books.filter((book) => lorebookIds.includes(book.id)) } });
    return run(() => api('PUT', `/api/sessions/${sessionId}/lorebooks`, { lorebookIds }));
  };

  const importFile = (file: File) =>
    run(async () => {
      const response = await fetch(`/api/lorebooks?fileName=${encodeURIComponent(file.name)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: await file.arrayBuffer(),
      });
      if (!response.ok) {
        const problem = (await response.json().catch(() => ({}))) as { code?: string; message?: string };
        throw new ApiFailure(response.status, { code: problem.code ?? `HTTP_${response.status}`, message: problem.message ?? response.statusText });
      }
    });

  const last = lore?.turns[0];
  return (
    <div className="dio-panel" data-testid="lore-panel">
      <p className="hint muted">世界书（SillyTavern world info）：关键词出现在最近的对话里时，条目会放进提示。人物卡自带的世界书总是生效。</p>
      {error && (
        <p className="error-box" role="alert">
          {error}
        </p>
      )}
      <section>
        <h4>本会话 This session</h4>
        {session?.characterBook && (
          <p className="small" data-testid="lore-character-book">
            人物卡世界书 {session.characterBook.character} · {session.characterBook.entries} 条
          </p>
        )}
        {books.length === 0 && <p className="muted small">还没有导入世界书。No lorebooks imported yet.</p>}
        {books.map((book) => (
          <label key={book.id} className="small" style={{ display: 'flex', gap: 6, alignItems: 'center' }}>
            <input type="checkbox" data-testid={`lore-attach-${book.id}`} checked={attachedIds.has(book.id)} onChange={(e) => void toggle(book.id, e.target.checked)} />
            <span>
              {book.name} <span className="muted">· {book.entries} 条{book.skipped.length > 0 ? ` · ${book.skipped.length} skipped` : ''}</span>
            </span>
            <button type="button" className="small" onClick={() => void run(() => api('DELETE', `/api/lorebooks/${book.id}`))}>
              删除 Delete
            </button>
          </label>
        ))}
        {session && session.missing.length > 0 && <p className="error-text small">已删除的世界书 deleted: {session.missing.join(', ')}</p>}
        <label className="small">
          导入世界书 Import world info (.json){' '}
          <input
            type="file"
            accept=".json,application/json"
            data-testid="lore-import"
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file) void importFile(file);
              e.target.value = '';
            }}
          />
        </label>
      </section>
      <section>
        <h4>本回合使用 Lore used this turn</h4>
        {!last && <p className="muted small">还没有回合。No turn yet.</p>}
        {last && last.entries.length === 0 && <p className="muted small">没有条目触发。Nothing fired.</p>}
        {last && last.entries.length > 0 && (
          <ul className="small" data-testid="lore-fired">
            {last.entries.map((entry) => (
              <li key={entry.id} data-entry={entry.id}>
                <strong>{entry.comment || entry.id}</strong> <span className="muted">({entry.position})</span> — {why(entry)}
              </li>
            ))}
          </ul>
        )}
        {last && (
          <p className="muted small">
            预算 budget {last.budget.used}/{last.budget.limit} tokens{last.budget.exhausted ? ' · 已满 exhausted' : ''}
            {last.rejected.length > 0 ? ` · 未放入 not inserted: ${last.rejected.map((r) => `${r.id} (${r.reason})`).join(', ')}` : ''}
          </p>
        )}
      </section>
    </div>
  );
}
