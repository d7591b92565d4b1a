import type { WorkspaceEditor } from './use-workspace.js';

/** Shown when a save was refused because the workspace changed since the player loaded it. */
export function ConflictBanner({ editor }: { editor: WorkspaceEditor }) {
  if (!editor.conflict) return null;
  return (
    <div className="conflict" role="alert" data-testid="conflict">
      <strong>保存被拒绝：有人在你编辑时修改了这个故事。</strong>
      <p>你的修改没有保存，也没有覆盖对方的内容。请载入最新版本，然后重新应用你的修改。</p>
      <p className="muted">{editor.conflict}</p>
      <div className="row">
        <button type="button" data-testid="conflict-reload" onClick={() => void editor.reloadKeepingEdits()}>
          载入最新版本并保留我的修改 Reload, keep my edits
        </button>
        <button type="button" className="secondary" data-testid="conflict-discard" onClick={() => void editor.reloadDiscardingEdits()}>
          放弃我的修改 Discard mine
        </button>
      </div>
    </div>
  );
}
