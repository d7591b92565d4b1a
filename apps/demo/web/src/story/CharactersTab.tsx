import { type FormEvent, useState } from 'react';
import { api } from '../api.js';
import type { StoryWorkspace } from '../../../src/wire/story.js';
import { MarkdownField } from './MarkdownField.js';
import type { WorkspaceEditor } from './use-workspace.js';

/** Characters: name, enabled, persona and private knowledge; add and remove. */
export function CharactersTab({ editor, ws }: { editor: WorkspaceEditor; ws: StoryWorkspace }) {
  const base = `/api/stories/${ws.id}/characters`;
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const add = async (event: FormEvent) => {
    event.preventDefault();
    if (await editor.change((baseRevision) => api('POST', base, { baseRevision, id, name }))) {
      setId('');
      setName('');
    }
  };
  return (
    <div className="tab-body">
      <p className="hint muted">每个人物只知道自己 knowledge.md 里的事；人物 Worker 看不到其他人物的资料。Each character only knows its own knowledge.md.</p>
      {ws.manifest.characters.map((c) => (
        <fieldset key={c.id} className="item" data-testid={`character-${c.id}`}>
          <legend>
            {c.name} <code className="muted">{c.id}</code>
          </legend>
          <div className="row">
            <NameInput
              value={c.name}
              label="名字 Name"
              onSave={(value) => editor.change((baseRevision) => api('PATCH', `${base}/${c.id}`, { baseRevision, name: value }))}
            />
            <label className="check">
              <input
                type="checkbox"
                checked={c.enabled}
                onChange={(e) => void editor.change((baseRevision) => api('PATCH', `${base}/${c.id}`, { baseRevision, enabled: e.target.checked }))}
              />
              参与场景 enabled
            </label>
            <button
              type="button"
              className="danger"
              onClick={() => {
                if (confirm(`删除人物 ${c.name} 及其文件？Remove ${c.name} and its files?`)) {
                  void editor.change((baseRevision) => api('DELETE', `${base}/${c.id}?baseRevision=${baseRevision}`));
                }
              }}
            >
              删除 Remove
            </button>
          </div>
          <MarkdownField editor={editor} path={`characters/${c.id}/persona.md`} label="人设 Persona" rows={5} />
          <MarkdownField editor={editor} path={`characters/${c.id}/knowledge.md`} label="认知 Knowledge（私有 private）" rows={5} />
        </fieldset>
      ))}
      <form className="add-form" onSubmit={add}>
        <strong>添加人物 Add a character</strong>
        <input placeholder="id，如 lia" value={id} onChange={(e) => setId(e.target.value)} pattern="[a-z0-9][a-z0-9_\-]{0,63}" required />
        <input placeholder="名字 Name" value={name} onChange={(e) => setName(e.target.value)} required />
        <button type="submit" disabled={editor.busy}>
          添加 Add
        </button>
      </form>
    </div>
  );
}

/** A text input saved with its own button (renames never happen on every keystroke). */
export function NameInput({ value, label, onSave }: { value: string; label: string; onSave: (value: string) => Promise<boolean> }) {
  const [draft, setDraft] = useState<string | null>(null);
  const shown = draft ?? value;
  return (
    <span className="name-input">
      <input aria-label={label} value={shown} onChange={(e) => setDraft(e.target.value)} />
      {draft !== null && draft !== value && (
        <button type="button" onClick={() => void onSave(draft.trim()).then((ok) => ok && setDraft(null))}>
          改名 Rename
        </button>
      )}
    </span>
  );
}
