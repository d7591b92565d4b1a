import { useEffect, useState } from 'react';
import { api } from '../api.js';
import type { CharacterDetail, CharacterFields, ChatView } from '../../../src/wire/library.js';
import { problemText } from './upload.js';

interface Props {
  readonly characterId: string;
  readonly onChanged: () => void;
  readonly onDeleted: () => void;
  readonly onChatStarted: (chat: ChatView) => void;
}

type TextField = Exclude<keyof CharacterFields, 'alternate_greetings' | 'tags'>;

const TEXT_FIELDS: readonly { key: TextField; label: string; rows: number }[] = [
  { key: 'name', label: '名字 Name', rows: 1 },
  { key: 'nickname', label: '昵称 Nickname ({{char}})', rows: 1 },
  { key: 'description', label: '描述 Description', rows: 6 },
  { key: 'personality', label: '性格 Personality', rows: 3 },
  { key: 'scenario', label: '场景 Scenario', rows: 3 },
  { key: 'first_mes', label: '开场白 First message', rows: 4 },
  { key: 'mes_example', label: '对话示例 Example messages', rows: 4 },
  { key: 'system_prompt', label: '系统提示 System prompt (replaces Main)', rows: 3 },
  { key: 'post_history_instructions', label: '历史后指令 Post-history instructions', rows: 3 },
  { key: 'creator_notes', label: '作者备注 Creator notes', rows: 3 },
  { key: 'creator', label: '作者 Creator', rows: 1 },
  { key: 'character_version', label: '版本 Version', rows: 1 },
];

// Alternate greetings are edited one per block, separated by a line with three dashes.
const GREETING_SEPARATOR = '\n---\n';

// The editable text of every field, as the form holds it.
function draftOf(value: CharacterDetail): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const { key } of TEXT_FIELDS) fields[key] = value.fields[key];
  fields['alternate_greetings'] = value.fields.alternate_greetings.join(GREETING_SEPARATOR);
  fields['tags'] = value.fields.tags.join(', ');
  return fields;
}

/**
 * One character: every card field as plain text (never HTML), save with conflict detection,
 * export as V3 PNG / JSON, delete, and start a chat.
 */
export function CharacterEditor({ characterId, onChanged, onDeleted, onChatStarted }: Props) {
  const [detail, setDetail] = useState<CharacterDetail | null>(null);
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  const load = (value: CharacterDetail) => {
    setDetail(value);
    setDraft(draftOf(value));
  };
  useEffect(() => {
    api<CharacterDetail>('GET', `/api/characters/${characterId}`).then(
      (value) => {
        setDetail(value);
        setDraft(draftOf(value));
      },
      (e: unknown) => setError(problemText(e)),
    );
  }, [characterId]);

  if (!detail) return error ? <p className="error-box">{error}</p> : <p className="muted">…</p>;

  const save = async () => {
    setError(null);
    setSaved(false);
    const fields: Record<string, unknown> = {};
    for (const { key } of TEXT_FIELDS) if (draft[key] !== detail.fields[key]) fields[key] = draft[key];
    const greetings = (draft['alternate_greetings'] ?? '').split(GREETING_SEPARATOR).filter((g) => g.trim() !== '');
    if (greetings.join('\u0000') !== detail.fields.alternate_greetings.join('\u0000')) fields['alternate_greetings'] = greetings;
    const tags = (draft['tags'] ?? '').split(',').map((t) => t.trim()).filter(Boolean);
    if (tags.join('\u0000') !== detail.fields.tags.join('\u0000')) fields['tags'] = tags;
    try {
      load(await api<CharacterDetail>('PATCH', `/api/characters/${characterId}`, { baseRevision: detail.revision, fields }));
      setSaved(true);
      onChanged();
    } catch (e) {
      setError(problemText(e));
    }
  };

  const remove = async () => {
    if (!confirm(`删除 ${detail.name}？Delete ${detail.name}? (Its chats keep their history.)`)) return;
    try {
      await api('DELETE', `/api/characters/${characterId}`);
      onDeleted();
    } catch (e) {
      setError(problemText(e));
    }
  };

  const startChat = async () => {
    try {
      onChatStarted(await api<ChatView>('POST', '/api/chats', { characterId }));
    } catch (e) {
      setError(problemText(e));
    }
  };

  return (
    <div className="character-editor" data-testid="character-editor">
      <div className="editor-head">
        {detail.hasAvatar && <img className="avatar large" src={`/api/characters/${characterId}/avatar?r=${detail.revision}`} alt="" />}
        <div>
          <h3 data-testid="character-title">{detail.name}</h3>
          <span className="muted small">
            {detail.spec} {detail.specVersion} · {detail.format.toUpperCase()} · 世界书 {detail.lorebookEntries} 条 · revision {detail.revision}
          </span>
        </div>
      </div>
      <div className="row wrap">
        <button type="button" data-testid="start-chat" onClick={startChat}>
          开始对话 Start chat
        </button>
        <a className="button-link secondary" href={`/api/characters/${characterId}/export.png`} download={`${characterId}.png`} data-testid="export-png">
          导出 PNG (V3)
        </a>
        <a className="button-link secondary" href={`/api/characters/${characterId}/export.json`} download={`${characterId}.json`} data-testid="export-json">
          导出 JSON (V3)
        </a>
        <button type="button" className="danger" data-testid="delete-character" onClick={remove}>
          删除 Delete
        </button>
      </div>
      {detail.notes.length > 0 && (
        <ul className="hint muted" data-testid="import-notes">
          {detail.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
      {TEXT_FIELDS.map(({ key, label, rows }) => (
        <label key={key} className="field">
          <span className="field-label">{label}</span>
          <textarea data-testid={`field-${key}`} rows={rows} value={draft[key] ?? ''} onChange={(e) => setDraft({ ...draft, [key]: e.target.value })} />
        </label>
      ))}
      <label className="field">
        <span className="field-label">备选开场白 Alternate greetings (one per block, separated by a line “---”)</span>
        <textarea data-testid="field-alternate_greetings" rows={5} value={draft['alternate_greetings'] ?? ''} onChange={(e) => setDraft({ ...draft, alternate_greetings: e.target.value })} />
      </label>
      <label className="field">
        <span className="field-label">标签 Tags (comma-separated)</span>
        <input data-testid="field-tags" value={draft['tags'] ?? ''} onChange={(e) => setDraft({ ...draft, tags: e.target.value })} />
      </label>
      <div className="row">
        <button type="button" data-testid="save-character" onClick={save}>
          保存 Save
        </button>
        {saved && <span className="badge ok">已保存 Saved</span>}
      </div>
      {error && (
        <p className="error-box" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
