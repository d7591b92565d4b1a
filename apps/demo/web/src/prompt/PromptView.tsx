import { useEffect, useRef, useState } from 'react';
import { api } from '../api.js';
import type { PromptItemization } from '../../../src/wire/prompt.js';
import { SOURCE_LABELS } from './source-labels.js';

interface Props {
  readonly sessionId: string;
  readonly turnId: string;
  readonly onClose: () => void;
}

/**
 * SillyTavern's "prompt itemization" for one reply: every message the actor was sent for the
 * turn's kept step, with where it came from and its tokens, plus the totals against the budget.
 * A modal dialog (Escape or the close button closes it).
 */
export function PromptView({ sessionId, turnId, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [data, setData] = useState<PromptItemization | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    dialog.current?.showModal();
    api<PromptItemization>('GET', `/api/sessions/${sessionId}/turns/${turnId}/prompt`).then(setData, (e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  }, [sessionId, turnId]);

  const bySource = new Map<string, number>();
  for (const block of data?.blocks ?? []) bySource.set(block.source, (bySource.get(block.source) ?? 0) + block.tokens);

  return (
    <dialog ref={dialog} className="prompt-view" data-testid="prompt-view" aria-labelledby={`prompt-title-${turnId}`} onClose={onClose}>
      <div className="prompt-view-head">
        <h3 id={`prompt-title-${turnId}`}>提示词构成 Prompt itemization</h3>
        <button type="button" className="secondary" onClick={() => dialog.current?.close()} aria-label="关闭 Close" data-testid="prompt-close">
          ✕
        </button>
      </div>
      {error && (
        <p className="error-box" role="alert">
          {error}
        </p>
      )}
      {!data && !error && <p className="muted">加载中… Loading…</p>}
      {data && (
        <>
          <p className="small" data-testid="prompt-total">
            共 <strong>{data.totalTokens}</strong> tokens（可用 {data.promptTokens} / 上下文 {data.contextTokens}，回复预留 {data.responseTokens}）· {data.tokenizer.id}
            {data.tokenizer.exact ? '' : '（估算 estimate）'} · 第 {data.step + 1} 个版本 step {data.step}
          </p>
          <ul className="prompt-summary" data-testid="prompt-summary">
            {[...bySource].map(([source, tokens]) => (
              <li key={source}>
                <span>{SOURCE_LABELS[source] ?? source}</span>
                <span className="prompt-bar" style={{ width: `${Math.max(2, Math.round((tokens / Math.max(1, data.totalTokens)) * 100))}%` }} aria-hidden="true" />
                <span>{tokens}</span>
              </li>
            ))}
          </ul>
          <ol className="prompt-blocks" data-testid="prompt-blocks">
            {data.blocks.map((block) => (
              <li key={block.index} data-testid="prompt-block" data-source={block.source}>
                <details>
                  <summary>
                    <span className="badge">{SOURCE_LABELS[block.source] ?? block.source}</span> <span className="muted">{block.role}{block.name ? ` · ${block.name}` : ''}</span> <strong className="prompt-tokens">{block.tokens} tokens</strong>
                  </summary>
                  <pre className="readonly">
                    {block.preview}
                    {block.truncated ? `…（共 ${block.chars} 字符 chars）` : ''}
                  </pre>
                </details>
              </li>
            ))}
          </ol>
        </>
      )}
    </dialog>
  );
}
