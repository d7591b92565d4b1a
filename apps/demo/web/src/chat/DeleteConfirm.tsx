interface Props {
  /** What will be removed, in words the player can check before confirming. */
  readonly question: string;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
}

/** The confirmation a delete asks for, inline under the message (Escape cancels). */
export function DeleteConfirm({ question, onConfirm, onCancel }: Props) {
  return (
    <div
      className="confirm-box"
      role="alertdialog"
      aria-label="确认删除 Confirm delete"
      data-testid="delete-confirm"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onCancel();
      }}
    >
      <span className="small">{question}</span>
      {/* biome-ignore lint/a11y/noAutofocus: a confirmation takes the focus so Enter/Escape answer it */}
      <button type="button" className="danger" data-testid="msg-delete-confirm" autoFocus onClick={onConfirm}>
        删除 Delete
      </button>
      <button type="button" className="secondary" data-testid="msg-delete-cancel" onClick={onCancel}>
        取消 Cancel
      </button>
    </div>
  );
}
