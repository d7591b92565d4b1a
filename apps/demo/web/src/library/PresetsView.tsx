import { useCallback, useEffect, useState } from 'react';
import { api } from '../api.js';
import type { PresetDetail, PresetSummary } from '../../../src/wire/library.js';
import { problemText, uploadFile } from './upload.js';

/** The preset library: import a SillyTavern chat-completion preset, the list, and the selected preset's report. */
export function PresetsView() {
  const [presets, setPresets] = useState<readonly PresetSummary[]>([]);
  const [selected, setSelected] = useState<string>('default');
  const [detail, setDetail] = useState<PresetDetail | null>(null);
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    setPresets((await api<{ presets: PresetSummary[] }>('GET', '/api/presets')).presets);
  }, []);
  useEffect(() => {
    refresh().catch((e: unknown) => setError(problemText(e)));
  }, [refresh]);
  useEffect(() => {
    setDetail(null);
    api<PresetDetail>('GET', `/api/presets/${selected}`).then(setDetail, (e: unknown) => setError(problemText(e)));
  }, [selected]);

  const onFile = async (file: File | undefined) => {
    if (!file) return;
    setError(null);
    try {
      const created = await uploadFile<PresetDetail>('/api/presets', file);
      await refresh();
      setSelected(created.id);
    } catch (e) {
      setError(`${file.name}: ${problemText(e)}`);
    }
  };

  const prepare = async (id: string, absorb: 'markers' | 'all') => {
    setError(null);
    try {
      setDetail(await api<PresetDetail>('POST', `/api/presets/${id}/prepare-for-dio`, { absorb }));
      await refresh();
    } catch (e) {
      setError(problemText(e));
    }
  };

  const remove = async (id: string, name: string) => {
    // Chats that use the preset go on with the default one: said before anything is deleted.
    if (!confirm(`删除预设 ${name}？使用它的聊天将改用默认预设。Delete the preset ${name}? Chats that use it switch to the default preset.`)) return;
    try {
      await api('DELETE', `/api/presets/${id}`);
      setSelected('default');
      await refresh();
    } catch (e) {
      setError(problemText(e));
    }
  };

  return (
    <div className="library">
      <div className="library-list">
        <label className="button-link file-button">
          导入预设 Import preset
          <input
            type="file"
            data-testid="import-preset"
            accept=".json,application/json"
            onChange={(e) => {
              void onFile(e.currentTarget.files?.[0]);
              e.currentTarget.value = '';
            }}
          />
        </label>
        <p className="hint muted">SillyTavern chat-completion presets (JSON)</p>
        {error && (
          <p className="error-box" role="alert">
            {error}
          </p>
        )}
        <ul className="story-list" data-testid="preset-list">
          {presets.map((p) => (
            <li key={p.id} className={p.id === selected ? 'open' : ''} data-testid={`preset-${p.id}`}>
              <button type="button" className="link" onClick={() => setSelected(p.id)}>
                <strong>{p.name}</strong> {p.builtIn && <span className="badge">内置 built-in</span>}
              </button>
              <span className="muted small">
                {p.prompts} prompts · {p.warnings} warnings · DIO {p.dioAccepts ? '✓' : '✗'}
              </span>
            </li>
          ))}
        </ul>
      </div>
      <div className="library-detail">{detail && <PresetReport detail={detail} onDelete={() => void remove(detail.id, detail.name)} onPrepare={(absorb) => void prepare(detail.id, absorb)} />}</div>
    </div>
  );
}

function PresetReport({ detail, onDelete, onPrepare }: { detail: PresetDetail; onDelete: () => void; onPrepare: (absorb: 'markers' | 'all') => void }) {
  const { report } = detail;
  const preparation = detail.dioPreparation;
  return (
    <div className="preset-detail" data-testid="preset-detail">
      <div className="editor-head">
        <h3>{detail.name}</h3>
        {!detail.builtIn && (
          <button type="button" className="danger" data-testid="delete-preset" onClick={onDelete}>
            删除 Delete
          </button>
        )}
      </div>
      <h4>DIO</h4>
      {report.dio.accepts ? (
        <p className="notice" data-testid="preset-dio">
          DIO 可以使用此预设：编译后的角色提示放在 “{report.dio.name ?? report.dio.slot.identifier}” 中。DIO can use this preset.
        </p>
      ) : (
        <p className="error-box" data-testid="preset-dio">
          DIO 不能使用此预设 DIO cannot use this preset — {report.dio.reason.code}: {report.dio.reason.message}
        </p>
      )}
      {report.characterText && report.characterText.length > 0 && (
        <p className="hint muted">
          角色文本所在的提示 Prompts carrying character text: {report.characterText.map((c) => c.name || c.identifier).join(', ')}
        </p>
      )}
      {!detail.builtIn && (!report.dio.accepts || (report.characterText?.length ?? 0) > 0) && (
        <p className="small">
          <button type="button" data-testid="prepare-for-dio" onClick={() => onPrepare('markers')}>
            为 DIO 准备 Prepare for DIO
          </button>{' '}
          <button type="button" data-testid="prepare-for-dio-all" onClick={() => onPrepare('all')}>
            连同自定义提示 Also move custom prompts with card fields
          </button>
        </p>
      )}
      {preparation && (
        <div className="small" data-testid="preset-dio-preparation">
          <p>
            <code>{preparation.status}</code> {preparation.reason ? `${preparation.reason.code}: ${preparation.reason.message}` : ''}
            {preparation.clean ? ' · 编译后的提示将是唯一的角色定义 the compiled prompt will be the only character definition' : ''}
          </p>
          <ul>
            {preparation.notes.map((note) => (
              <li key={note}>{note}</li>
            ))}
          </ul>
        </div>
      )}
      <h4>导入警告 What Troupe does not apply ({detail.importWarnings.length})</h4>
      {detail.importWarnings.length === 0 ? (
        <p className="muted small">无 None</p>
      ) : (
        <ul className="small" data-testid="preset-import-warnings">
          {detail.importWarnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      <h4>预检 validatePreset</h4>
      <p className="small">
        {report.ok ? <span className="badge ok">ok</span> : <span className="badge bad">invalid</span>} · story draft: {report.storyDraft}
      </p>
      {[...report.issues, ...report.warnings].length > 0 && (
        <ul className="small" data-testid="preset-report-warnings">
          {[...report.issues, ...report.warnings].map((w, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list from one report
            <li key={`${i}-${w.code}`}>
              <code>{w.code}</code> {w.path ? `(${w.path}) ` : ''}
              {w.message}
            </li>
          ))}
        </ul>
      )}
      <h4>提示 Prompts ({detail.preset.prompts.length})</h4>
      <ol className="prompt-list small">
        {detail.preset.prompts.map((p) => (
          <li key={p.identifier} className={p.enabled === false ? 'muted' : ''}>
            <strong>{p.name || p.identifier}</strong> <span className="muted">[{p.marker ?? p.role}]</span>
            {p.enabled === false && ' (off)'}
          </li>
        ))}
      </ol>
    </div>
  );
}
