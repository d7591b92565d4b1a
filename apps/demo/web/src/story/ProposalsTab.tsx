import { MarkdownField } from './MarkdownField.js';
import type { WorkspaceEditor } from './use-workspace.js';

/**
 * The pipeline's suggestions (proposals.md) next to the outline: the player copies what they
 * accept into the outline by hand and saves. The pipeline never writes the outline itself.
 */
export function ProposalsTab({ editor }: { editor: WorkspaceEditor }) {
  const proposals = editor.ws?.files['proposals.md'] ?? '';
  const history = editor.ws?.files['history.md'] ?? '';
  return (
    <div className="tab-body">
      <p className="hint">
        回合结束后，连续性 Worker 的大纲与伏笔建议只追加到 <code>proposals.md</code>。想采纳的内容请手动复制到大纲或伏笔并保存。
        <span className="muted"> Suggestions are never applied automatically: copy what you accept into the outline and save.</span>
      </p>
      <div className="split">
        <div>
          <h4>建议 Proposals</h4>
          <pre className="readonly" data-testid="proposals">
            {proposals.trim() || '（暂无建议 none yet）'}
          </pre>
          <MarkdownField editor={editor} path="proposals.md" label="编辑建议（可删除已处理的条目）Edit proposals" rows={4} />
        </div>
        <div>
          <MarkdownField editor={editor} path="outline.md" label="大纲 Outline" rows={12} />
        </div>
      </div>
      <h4>公开历史 Public history</h4>
      <pre className="readonly">{history.trim() || '（暂无 none yet）'}</pre>
    </div>
  );
}
