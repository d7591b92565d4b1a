interface Props {
  /** 0-based position of the shown step among the turn's steps. */
  readonly position: number;
  readonly total: number;
  readonly disabled: boolean;
  readonly onPrevious: () => void;
  /** Shows the next step; absent at the last step unless `onGenerate` is given. */
  readonly onNext: () => void;
  /** At the last step of the last reply, › generates a new reply instead (as in SillyTavern). */
  readonly onGenerate?: (() => void) | undefined;
}

/** ‹ n / m › between the committed steps (swipes) of a reply. */
export function SwipeControls({ position, total, disabled, onPrevious, onNext, onGenerate }: Props) {
  const atEnd = position >= total - 1;
  const generates = atEnd && onGenerate !== undefined;
  const nextLabel = generates ? '生成新的回复 Generate a new reply (swipe)' : '下一个回复 Next reply (swipe)';
  return (
    <span className="step-swipes" data-testid="step-swipes">
      <button type="button" className="tool" data-testid="step-prev" aria-label="上一个回复 Previous reply (swipe)" title="上一个回复 Previous reply (swipe)" disabled={disabled || position === 0} onClick={onPrevious}>
        ‹
      </button>
      <span className="muted small" data-testid="step-position" title={`回复 ${position + 1} / ${total} Reply ${position + 1} of ${total}`}>
        {position + 1} / {total}
      </span>
      <button type="button" className="tool" data-testid="step-next" aria-label={nextLabel} title={nextLabel} disabled={disabled || (atEnd && !generates)} onClick={generates ? onGenerate : onNext}>
        ›
      </button>
    </span>
  );
}
