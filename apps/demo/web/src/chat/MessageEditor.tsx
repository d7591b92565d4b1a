import { useState } from 'react';

interface Props {
  readonly initial: string;
  /** Names the text area for assistive technology (“edit your line” / “edit the reply”). */
  readonly label: string;
  /** Saves; resolves with why it was refused (the editor stays open with the text and says so), or null. */
  readonly onSave: (text: string) => Promise<string | null>;
  readonly onCancel: () => void;
}

/** Edits one message in place: Save (Ctrl+Enter) or Cancel (Escape). */
export function MessageEditor({ initial, label, onSave, onCancel }: Props) {
  const [value, setValue] = useState(initial);
  const [saving, setSaving] = useState(false);
  const [refused, setRefused] = useState<string | null>(null);
  const unchanged = value === initial;
  const empty = value.trim() === '';

  const save = async () => {
    if (saving || empty) return;
    if (unchanged) {
      onCancel();
      return;
    }
    setSaving(true);
    setRefused(null);
    const why = await onSave(value);
    // On success the editor is gone (the parent closed it); on failure keep the text to retry.
    if (why !== null) {
      setSaving(false);
      setRefused(why);
    }
  };

  return (
    <div className="message-editor" data-testid="message-editor">
      <textarea
        data-testid="msg-edit-text"
        aria-label={label}
        value={value}
        rows={Math.min(12, Math.max(3, value.split('\n').length + 1))}
        // biome-ignore lint/a11y/noAutofocus: the player just asked to edit this message; focus belongs in it
        autoFocus
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            onCancel();
          } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void save();
          }
        }}
      />
      {refused && (
        <p className="error-box small" role="alert" data-testid="msg-edit-error">
          {refused}
        </p>
      )}
      <div className="message-editor-buttons">
        <button type="button" data-testid="msg-edit-save" title="保存 Save (Ctrl+Enter)" disabled={saving || empty} onClick={() => void save()}>
          保存 Save
        </button>
        <button type="button" className="secondary" data-testid="msg-edit-cancel" title="取消 Cancel (Esc)" disabled={saving} onClick={onCancel}>
          取消 Cancel
        </button>
      </div>
    </div>
  );
}
