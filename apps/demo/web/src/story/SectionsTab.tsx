import { type FormEvent, useState } from 'react';
import { api } from '../api.js';
import type { SectionEntry, StoryWorkspace } from '../../../src/wire/story.js';
import { NameInput } from './CharactersTab.js';
import { MarkdownField } from './MarkdownField.js';
import type { WorkspaceEditor } from './use-workspace.js';

const KINDS: readonly { value: SectionEntry['kind']; label: string }[] = [
  { value: 'prose', label: '叙事 prose' },
  { value: 'character', label: '人物 character' },
  { value: 'history', label: '历史 history' },
];

/** Sections: title, kind, focus, order, enabled and reference text; add and remove. */
export function SectionsTab({ editor, ws }: { editor: WorkspaceEditor; ws: StoryWorkspace }) {
  const base = `/api/stories/${ws.id}/sections`;
  const [id, setId] = useState('');
  const [title, setTitle] = useState('');
  const [kind, setKind] = useState<SectionEntry['kind']>('prose');
  const patch = (sectionId: string, body: Record<string, unknown>) => editor.change((baseRevision) => api('PATCH', `${base}/${sectionId}`, { baseRevision, ...body }));
  const add = async (event: FormEvent) => {
    event.preventDefault();
    if (await editor.change((baseRevision) => api('POST', base, { baseRevision, id, title, kind }))) {
      setId('');
      setTitle('');
    }
  };
  const sections = [...ws.manifest.sections].sort((a, b) => a.order - b.order);
  return (
    <div className="tab-body">
      <p className="hint muted">启用的分区按顺序写作，各自以二级标题交给编辑。Enabled sections are written in order.</p>
      {sections.map((s) => (
        <fieldset key={s.id} className="item" data-testid={`section-${s.id}`}>
          <legend>
            {s.title} <code className="muted">{s.id}</code>
          </legend>
          <div className="row wrap">
            <NameInput value={s.title} label="标题 Title" onSave={(value) => patch(s.id, { title: value })} />
            <select aria-label="类型 Kind" value={s.kind} onChange={(e) => void patch(s.id, { kind: e.target.value })}>
              {KINDS.map((k) => (
                <option key={k.value} value={k.value}>
                  {k.label}
                </option>
              ))}
            </select>
            {s.kind === 'character' && (
              <select aria-label="聚焦 Focus" value={s.focus ?? ''} onChange={(e) => void patch(s.id, { focus: e.target.value || null })}>
                <option value="">全部参与人物 all participants</option>
                {ws.manifest.characters.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </select>
            )}
            <label>
              顺序 order{' '}
              <input
                type="number"
                min={0}
                className="narrow"
                value={s.order}
                onChange={(e) => void patch(s.id, { order: Math.max(0, Number(e.target.value) || 0) })}
              />
            </label>
            <label className="check">
              <input type="checkbox" checked={s.enabled} onChange={(e) => void patch(s.id, { enabled: e.target.checked })} />
              启用 enabled
            </label>
            <button
              type="button"
              className="danger"
              onClick={() => confirm(`删除分区 ${s.title}？Remove section?`) && void editor.change((r) => api('DELETE', `${base}/${s.id}?baseRevision=${r}`))}
            >
              删除 Remove
            </button>
          </div>
          <MarkdownField editor={editor} path={`sections/${s.id}.md`} label="分区参考 Reference" rows={4} />
        </fieldset>
      ))}
      <form className="add-form" onSubmit={add}>
        <strong>添加分区 Add a section</strong>
        <input placeholder="id，如 scene" value={id} onChange={(e) => setId(e.target.value)} pattern="[a-z0-9][a-z0-9_\-]{0,63}" required />
        <input placeholder="标题 Title" value={title} onChange={(e) => setTitle(e.target.value)} required />
        <select aria-label="类型 Kind" value={kind} onChange={(e) => setKind(e.target.value as SectionEntry['kind'])}>
          {KINDS.map((k) => (
            <option key={k.value} value={k.value}>
              {k.label}
            </option>
          ))}
        </select>
        <button type="submit" disabled={editor.busy}>
          添加 Add
        </button>
      </form>
    </div>
  );
}
