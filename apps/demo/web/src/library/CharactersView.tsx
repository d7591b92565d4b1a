import { useCallback, useEffect, useState } from 'react';
import { api } from '../api.js';
import { CharacterEditor } from './CharacterEditor.js';
import type { CharacterSummary, ChatView } from '../../../src/wire/library.js';
import { problemText, uploadFile } from './upload.js';

interface Props {
  /** Called with a new chat after "Start chat". */
  readonly onChatStarted: (chat: ChatView) => void;
}

/** The character library: import a card file, the list with avatars, and the selected character's editor. */
export function CharactersView({ onChatStarted }: Props) {
  const [characters, setCharacters] = useState<readonly CharacterSummary[]>([]);
  const [broken, setBroken] = useState<readonly { id: string; message: string }[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    const list = await api<{ characters: CharacterSummary[]; broken: { id: string; message: string }[] }>('GET', '/api/characters');
    setCharacters(list.characters);
    setBroken(list.broken);
  }, []);
  useEffect(() => {
    refresh().catch((e: unknown) => setError(problemText(e)));
  }, [refresh]);

  const onFiles = async (files: FileList | null) => {
    setError(null);
    setNotice(null);
    for (const file of Array.from(files ?? [])) {
      try {
        const created = await uploadFile<CharacterSummary & { notes: string[] }>('/api/characters', file);
        setSelected(created.id);
        setNotice(`已导入 Imported ${created.name}${created.notes.length > 0 ? ` — ${created.notes.join('; ')}` : ''}`);
      } catch (e) {
        setError(`${file.name}: ${problemText(e)}`);
      }
    }
    await refresh();
  };

  return (
    <div className="library">
      <div className="library-list">
        <label className="button-link file-button">
          导入角色卡 Import card
          <input
            type="file"
            data-testid="import-character"
            accept=".png,.json,.charx,image/png,application/json"
            multiple
            onChange={(e) => {
              void onFiles(e.currentTarget.files);
              e.currentTarget.value = '';
            }}
          />
        </label>
        <p className="hint muted">PNG（chara / ccv3）、JSON（V1 / V2 / V3）、CHARX</p>
        {notice && <p className="notice" data-testid="import-notice">{notice}</p>}
        {error && (
          <p className="error-box" role="alert" data-testid="import-error">
            {error}
          </p>
        )}
        <ul className="card-grid" data-testid="character-list">
          {characters.map((c) => (
            <li key={c.id} className={c.id === selected ? 'open' : ''} data-testid={`character-${c.id}`}>
              <button type="button" className="link card-button" onClick={() => setSelected(c.id)}>
                {c.hasAvatar ? <img className="avatar" src={`/api/characters/${c.id}/avatar?r=${c.revision}`} alt="" /> : <span className="avatar placeholder">{Array.from(c.name)[0]}</span>}
                <span className="card-name">{c.name}</span>
                <span className="muted small">
                  {c.format.toUpperCase()} · {c.spec.replace('chara_card_', '')} · {c.greetings} 问候
                </span>
              </button>
            </li>
          ))}
        </ul>
        {characters.length === 0 && <p className="muted">还没有角色。导入一张 SillyTavern 角色卡开始吧。No characters yet.</p>}
        {broken.map((b) => (
          <p key={b.id} className="error-text small">
            {b.id}: {b.message}
          </p>
        ))}
      </div>
      <div className="library-detail">
        {selected ? (
          <CharacterEditor
            key={selected}
            characterId={selected}
            onChanged={() => void refresh()}
            onDeleted={() => {
              setSelected(null);
              void refresh();
            }}
            onChatStarted={onChatStarted}
          />
        ) : (
          <p className="muted">选择一个角色查看和编辑。Pick a character to view and edit it.</p>
        )}
      </div>
    </div>
  );
}
