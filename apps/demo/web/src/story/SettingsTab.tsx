import { type FormEvent, useEffect, useState } from 'react';
import { api } from '../api.js';
import type { StoryWorkspace } from '../../../src/wire/story.js';
import type { WorkspaceEditor } from './use-workspace.js';

/** Workspace name and pipeline settings (parallelism, optional provider/model, web search). */
export function SettingsTab({ editor, ws }: { editor: WorkspaceEditor; ws: StoryWorkspace }) {
  const { name, pipeline } = ws.manifest;
  const [form, setForm] = useState({ name, maxParallel: pipeline.maxParallel, provider: pipeline.provider ?? '', model: pipeline.model ?? '', webSearch: pipeline.webSearch });
  // A reload (after a conflict or a turn) shows the saved settings again.
  useEffect(() => {
    setForm({ name, maxParallel: pipeline.maxParallel, provider: pipeline.provider ?? '', model: pipeline.model ?? '', webSearch: pipeline.webSearch });
  }, [name, pipeline]);
  const save = (event: FormEvent) => {
    event.preventDefault();
    void editor.change((baseRevision) =>
      api('PATCH', `/api/stories/${ws.id}/manifest`, {
        baseRevision,
        name: form.name.trim(),
        pipeline: { maxParallel: form.maxParallel, provider: form.provider.trim() || null, model: form.model.trim() || null, webSearch: form.webSearch },
      }),
    );
  };
  return (
    <form className="tab-body settings" onSubmit={save}>
      <label>
        工程名 Name
        <input data-testid="settings-name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required />
      </label>
      <label>
        同阶段并行数 maxParallel（1–8）
        <input type="number" min={1} max={8} value={form.maxParallel} onChange={(e) => setForm({ ...form, maxParallel: Number(e.target.value) })} />
      </label>
      <label>
        流水线 provider（留空 = 跟随会话模型）
        <input value={form.provider} onChange={(e) => setForm({ ...form, provider: e.target.value })} placeholder="openai-compatible" />
      </label>
      <label>
        流水线 model（留空 = 跟随会话模型）
        <input value={form.model} onChange={(e) => setForm({ ...form, model: e.target.value })} placeholder="qwen2.5" />
      </label>
      <label className="check">
        <input type="checkbox" checked={form.webSearch} onChange={(e) => setForm({ ...form, webSearch: e.target.checked })} />
        使用网络检索（若已配置）web search
      </label>
      <p className="hint muted">故事 Worker 的模型设置不改变顶层角色的模型。These settings do not change the actor's model.</p>
      <button type="submit" disabled={editor.busy}>
        保存设置 Save settings
      </button>
    </form>
  );
}
