import type { StageProgress } from '../../../src/wire/turn-stream.js';
import { STAGE_NAMES } from './stage-names.js';

/** One row per stage call: a stage (and its item) with its latest status. */
export interface StageRow {
  readonly key: string;
  readonly progress: StageProgress;
}

/** Folds a progress message into the rows: a result updates the row its request started. */
export function addStage(rows: readonly StageRow[], progress: StageProgress): StageRow[] {
  const key = `${progress.stage}:${progress.item ?? ''}`;
  const index = rows.findLastIndex((row) => row.key === key && row.progress.status === 'started');
  if (progress.status !== 'started' && index >= 0) return rows.map((row, i) => (i === index ? { key, progress } : row));
  return [...rows, { key, progress }];
}

const ICONS = { started: '…', done: '✓', failed: '✗' } as const;

/** The story pipeline's progress for the running (or last) turn. */
export function StageList({ rows, notes }: { rows: readonly StageRow[]; notes: readonly string[] }) {
  if (rows.length === 0 && notes.length === 0) return null;
  return (
    <div className="stages" data-testid="stage-progress">
      <ol>
        {rows.map((row, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are only appended or updated in place, so positions are stable
          <li key={`${row.key}-${i}`} className={`stage stage-${row.progress.status}`} data-stage={row.progress.stage} data-status={row.progress.status}>
            <span className="stage-icon">{ICONS[row.progress.status]}</span>
            {STAGE_NAMES[row.progress.stage] ?? row.progress.stage}
            {row.progress.item ? <span className="muted"> · {row.progress.item}</span> : null}
            {row.progress.error ? <span className="error-text"> — {row.progress.error.message}</span> : null}
          </li>
        ))}
      </ol>
      {notes.length > 0 && (
        <ul className="notes">
          {notes.map((note, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: notes are only appended, so positions are stable
            <li key={`${i}-${note}`}>{note}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
