import { useCallback } from 'react';
import { ApiFailure, api } from '../api.js';
import type { DioTaskView, DioView } from '../../../src/wire/dio.js';
import { useLoaded } from '../use-loaded.js';

const STATUS: Readonly<Record<DioTaskView['status'], { label: string; tone: string }>> = {
  submitting: { label: '提交中 submitting', tone: 'warn' },
  processing: { label: '编译中 processing', tone: 'warn' },
  succeeded: { label: '已完成 succeeded', tone: 'ok' },
  failed: { label: '失败 failed', tone: 'bad' },
  timed_out: { label: '超时 timed out', tone: 'bad' },
  degraded: { label: '等待中断 degraded', tone: 'bad' },
  schedule_failed: { label: '未提交 not scheduled', tone: 'bad' },
};

const POLL_MS = 1_500;

// What the last turn's lookup of a compiled prompt did, in words (the outcome codes of `dio/active-prompt-*`).
const LOOKUP: Readonly<Record<NonNullable<DioView['lastLookup']>['outcome'], string>> = {
  applied: '已使用编译提示 applied the compiled prompt',
  none: '还没有编译提示，使用原始人物提示 no compiled prompt yet: the original character prompt',
  skipped: '这个回合不使用 DIO not used this turn (this chat plays without DIO)',
  degraded: '查询失败，使用原始人物提示 the lookup failed: the original character prompt',
  dropped: '编译提示超出上下文，本回合使用原始人物提示 the compiled prompt did not fit the context: the original character prompt (raise the context size or revoke requirements)',
};

/** The DIO view: latest task status, the active compiled prompt, and the active requirements with revoke. */
export function DioPanel({ sessionId, turnCount }: { sessionId: string; turnCount: number }) {
  const fetchView = useCallback(() => api<DioView>('GET', `/api/sessions/${sessionId}/dio`), [sessionId]);
  // Polled while the panel is open: the task finishes in the background after the turn.
  const { value: view, error, act } = useLoaded(fetchView, { reloadKey: turnCount, pollMs: POLL_MS, describeActionError: (e) => (e instanceof ApiFailure ? e.message : String(e)) });

  const revoke = (requirementId: string) => act(() => api('DELETE', `/api/sessions/${sessionId}/dio/requirements/${encodeURIComponent(requirementId)}`));

  if (!view) return <div className="dio-panel muted">{error ?? '载入中… Loading…'}</div>;
  const { task, activePrompt, requirements, lastLookup, changes, service } = view;
  // Unknown, not empty, while the service cannot be asked: the task status above still holds.
  const unreachable = service.reachable === false;
  return (
    <div className="dio-panel" data-testid="dio-panel">
      <p className="hint muted">
        说出“从现在起……”这样的长期要求时，导演会把你的原话交给 DIO 服务；DIO 在后台编译一份完整的新人物提示，从之后的回合起生效。
      </p>
      {error && (
        <p className="error-box" role="alert">
          {error}
        </p>
      )}
      {unreachable && (
        <p className="error-box" role="status" data-testid="dio-service-unreachable">
          DIO 服务暂时无法连接，下面的任务状态来自本会话的记录。The DIO service could not be reached; the task status below is this session's own record.
          {service.error && (
            <span className="small">
              {' '}
              ({service.error.code}: {service.error.message})
            </span>
          )}
        </p>
      )}
      <section>
        <h4>任务状态 Task</h4>
        {task ? (
          <div data-testid="dio-task">
            <span className={`badge ${STATUS[task.status].tone}`} data-testid="dio-task-status" data-status={task.status}>
              {STATUS[task.status].label}
            </span>
            {task.promptChanged === false && <span className="muted"> · 提示未变化 prompt unchanged</span>}
            {task.error && <p className="error-text small">{task.error.message}</p>}
            <p className="muted small">
              {task.requestId && <code>{task.requestId}</code>} · {new Date(task.scheduledAt).toLocaleTimeString()}
            </p>
          </div>
        ) : (
          <p className="muted">这个会话还没有提出长期要求。No lasting requirement in this session yet.</p>
        )}
        {lastLookup && (
          <p className="small" data-testid="dio-last-lookup">
            最近一回合 Last turn: {LOOKUP[lastLookup.outcome] ?? lastLookup.outcome}
            {(lastLookup.outcome === 'degraded' || lastLookup.outcome === 'dropped') && typeof (lastLookup.data as { message?: unknown } | null)?.message === 'string' && (
              <span className="muted" data-testid="dio-last-lookup-reason">
                {' '}
                ({(lastLookup.data as { message: string }).message})
              </span>
            )}
          </p>
        )}
      </section>
      <section>
        <h4>当前编译提示 Active compiled prompt</h4>
        {activePrompt ? (
          <div data-testid="dio-active-prompt">
            <dl className="facts">
              <dt>版本 Version</dt>
              <dd>
                <code data-testid="dio-version">{activePrompt.versionId}</code>
              </dd>
              <dt>基于 Source</dt>
              <dd>
                <code>{activePrompt.sourceVersionId}</code>
              </dd>
              <dt>SHA-256</dt>
              <dd>
                <code className="hash" data-testid="dio-hash">
                  {activePrompt.compiledPromptSha256}
                </code>{' '}
                {activePrompt.hashVerified ? <span className="badge ok">✓ 校验通过</span> : <span className="badge bad">✗ 不匹配</span>}
              </dd>
              <dt>变更 Changeset</dt>
              <dd>
                <ul className="changeset">
                  {activePrompt.changeset.added.map((r) => (
                    <li key={`a-${r.id}`} className="added">
                      + {r.text}
                    </li>
                  ))}
                  {activePrompt.changeset.removed.map((r) => (
                    <li key={`r-${r.id}`} className="removed">
                      − {r.text}
                    </li>
                  ))}
                  {activePrompt.changeset.added.length + activePrompt.changeset.removed.length === 0 && <li className="muted">（无 none）</li>}
                </ul>
              </dd>
            </dl>
            <details>
              <summary>完整提示 Full prompt</summary>
              <pre className="readonly">{activePrompt.compiledPrompt}</pre>
            </details>
          </div>
        ) : unreachable ? (
          <p className="muted" data-testid="dio-prompt-unknown">
            服务无法连接，暂不清楚。Unknown while the service cannot be reached.
          </p>
        ) : (
          <p className="muted" data-testid="dio-no-prompt">
            暂无编译提示；人物使用原始提示。No compiled prompt yet: the character plays its original prompt.
          </p>
        )}
      </section>
      <section>
        <h4>生效中的要求 Active requirements</h4>
        {unreachable && requirements.length === 0 ? (
          <p className="muted">服务无法连接，暂不清楚。Unknown while the service cannot be reached.</p>
        ) : requirements.length === 0 ? (
          <p className="muted">无 none</p>
        ) : (
          <ul className="requirements" data-testid="dio-requirements">
            {requirements.map((r) => (
              <li key={r.id}>
                <span>{r.text}</span>
                <button type="button" className="danger" data-testid={`revoke-${r.id}`} onClick={() => void revoke(r.id)}>
                  撤销 Revoke
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
      {changes.length > 0 && (
        <section>
          <h4>要求变更记录 Requirement history</h4>
          <ul className="requirements" data-testid="dio-changes">
            {changes.map((change) => (
              <li key={`${change.kind}-${change.at}-${change.requirementId ?? change.fromSessionId ?? ''}`} data-kind={change.kind}>
                {change.kind === 'revoked' && <span>已撤销 Revoked: {change.text ?? change.requirementId}</span>}
                {change.kind === 'forked' && (
                  <span>
                    从 {change.fromSessionId} 分支，带来 {change.requirements} 条要求 Branched from {change.fromSessionId} with {change.requirements} requirement(s)
                  </span>
                )}
                {change.kind === 'fork_degraded' && (
                  <span className="error-text">
                    分支未能带来要求 Branch kept no requirements ({change.reason === 'unsupported' ? 'the DIO service cannot fork' : change.error?.message})
                  </span>
                )}
                <span className="muted small"> · {new Date(change.at).toLocaleTimeString()}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
