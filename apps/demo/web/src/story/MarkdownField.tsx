import type { WorkspaceEditor } from './use-workspace.js';

interface Props {
  readonly editor: WorkspaceEditor;
  readonly path: string;
  readonly label: string;
  readonly hint?: string;
  readonly rows?: number;
}

/** A Markdown file of the workspace: a textarea with its own save button. */
export function MarkdownField({ editor, path, label, hint, rows = 8 }: Props) {
  const dirty = editor.isDirty(path);
  return (
    <div className="field">
      <div className="field-head">
        <label htmlFor={`file-${path}`}>
          {label} <code className="muted">{path}</code>
        </label>
        {dirty && <span className="badge warn">未保存 unsaved</span>}
        <button type="button" data-testid={`save-${path}`} disabled={!dirty || editor.busy} onClick={() => void editor.save([path])}>
          保存 Save
        </button>
      </div>
      {hint && <p className="hint muted">{hint}</p>}
      <textarea
        id={`file-${path}`}
        data-testid={`file-${path}`}
        value={editor.text(path)}
        rows={rows}
        spellCheck={false}
        onChange={(e) => editor.edit(path, e.target.value)}
      />
    </div>
  );
}
