import { type FormEvent, useState } from 'react';
import { api } from '../api.js';
import type { StoryWorkspace } from '../../../src/wire/story.js';
import { NameInput } from './CharactersTab.js';
import { MarkdownField } from './MarkdownField.js';
import type { WorkspaceEditor } from './use-workspace.js';

/** Source documents for local retrieval: title, enabled and text; add and remove. */
export function SourcesTab({ editor, ws }: { editor: WorkspaceEditor; ws: StoryWorkspace }) {
  const base = `/api/stories/${ws.id}/sources`;
  const [id, setId] = useState('');
  const [title, setTitle] = useState('');
  const [text, setText] = useState('');
  const add = async (event: FormEvent) => {
    event.preventDefault();
    if (await editor.change((baseRevision) => api('POST', base, { baseRevision, id, title, text }))) {
      setId('');
      setTitle('');
      setText('');
    }
  };
  return (
    <div className="tab-body">
      <p className="hint muted">研究阶段从启用的资料中检索相关片段。Research retrieves snippets from enabled sources.</p>
      {ws.manifest.sources.map((s) => (
        <fieldset key={s.id} className="item" data-testid={`source-${s.id}`}>
          <legend>
            {s.title} <code className="muted">{s.id}</code>
          </legend>
          <div className="row">
            <NameInput value={s.title} label="标题 Title" onSave={(value) => editor.change((r) => api('PATCH', `${base}/${s.id}`, { baseRevision: r, title: value }))} />
            <label className="check">
              <input type="checkbox" checked={s.enabled} onChange={(e) => void editor.change((r) => api('PATCH', `${base}/${s.id}`, { baseRevision: r, enabled: e.target.checked }))} />
              启用 enabled
            </label>
            <button
              type="button"
              className="danger"
              onClick={() => confirm(`删除资料 ${s.title}？Remove source?`) && void editor.change((r) => api('DELETE', `${base}/${s.id}?baseRevision=${r}`))}
            >
              删除 Remove
            </button>
          </div>
          <MarkdownField editor={editor} path={`sources/${s.id}.md`} label="内容 Text" rows={6} />
        </fieldset>
      ))}
      <form className="add-form column" onSubmit={add}>
        <strong>添加资料 Add a source</strong>
        <input placeholder="id，如 harbor-guide" value={id} onChange={(e) => setId(e.target.value)} pattern="[a-z0-9][a-z0-9_\-]{0,63}" required />
        <input placeholder="标题 Title" value={title} onChange={(e) => setTitle(e.target.value)} required />
        <textarea placeholder="Markdown 内容" value={text} onChange={(e) => setText(e.target.value)} rows={4} />
        <button type="submit" disabled={editor.busy}>
          添加 Add
        </button>
      </form>
    </div>
  );
}
