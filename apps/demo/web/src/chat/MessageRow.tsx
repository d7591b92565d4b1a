import { type ReactNode, useState } from 'react';
import { copyText } from './copy-text.js';
import { DeleteConfirm } from './DeleteConfirm.js';
import { CopyIcon, DeleteIcon, EditIcon } from './icons.js';
import { MessageBody } from './MessageBody.js';
import { MessageEditor } from './MessageEditor.js';

interface Props {
  readonly side: 'user' | 'assistant';
  /** Test id of the bubble (`user-line`, `reply`); the row is `<testId>-row`. */
  readonly testId: string;
  readonly text: string;
  readonly speaker?: string;
  readonly reasoning?: string | undefined;
  readonly edited?: boolean | undefined;
  /** True while a turn streams or another control runs: the tools wait. */
  readonly busy: boolean;
  /** Names the message in button labels, in both languages of the UI (“你的话” / “your line”). */
  readonly what: { readonly zh: string; readonly en: string };
  readonly deleteQuestion: string;
  /** Saves an edit; resolves false when it failed. */
  /** Resolves with why the save was refused (the editor shows it), or null when it is saved. */
  readonly onSave: (text: string) => Promise<string | null>;
  readonly onDelete: () => void;
  /** Tools of this kind of message only (swipes, regenerate), shown before the common ones. */
  readonly tools?: ReactNode;
  /** Shown in the bubble under the text: the token count, the prompt button. */
  readonly meta?: ReactNode;
}

/**
 * One chat message with its tools — copy, edit (Save/Cancel in place) and delete (this and every
 * later message, after a confirmation). The tools sit beside the bubble, not in it, so the
 * bubble holds only what the message says.
 */
export function MessageRow({ side, testId, text, speaker, reasoning, edited, busy, what, deleteQuestion, onSave, onDelete, tools, meta }: Props) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [copied, setCopied] = useState<boolean | null>(null);

  const copy = async () => {
    const done = await copyText(text);
    setCopied(done);
    window.setTimeout(() => setCopied(null), 2000);
  };

  return (
    <div className={`message-row ${side}`} data-testid={`${testId}-row`}>
      {editing ? (
        <MessageEditor
          initial={text}
          label={`编辑${what.zh} Edit ${what.en}`}
          onCancel={() => setEditing(false)}
          onSave={async (next) => {
            const refused = await onSave(next);
            if (refused === null) setEditing(false);
            return refused;
          }}
        />
      ) : (
        <div className={`bubble ${side}`} data-testid={testId}>
          {speaker && <span className="speaker">{speaker}</span>}
          {reasoning && (
            <details className="reasoning" data-testid="reasoning">
              <summary>思考过程 Reasoning</summary>
              <pre>{reasoning}</pre>
            </details>
          )}
          <MessageBody text={text} />
          {meta}
        </div>
      )}
      {!editing && (
        <fieldset className="message-tools" aria-label={`${what.zh}的操作 Tools for ${what.en}`}>
          {tools}
          <button type="button" className="tool" data-testid="msg-copy" aria-label={`复制${what.zh} Copy ${what.en}`} title={`复制${what.zh} Copy ${what.en}`} onClick={() => void copy()}>
            <CopyIcon />
          </button>
          <button type="button" className="tool" data-testid="msg-edit" aria-label={`编辑${what.zh} Edit ${what.en}`} title={`编辑${what.zh} Edit ${what.en}`} disabled={busy} onClick={() => setEditing(true)}>
            <EditIcon />
          </button>
          <button
            type="button"
            className="tool"
            data-testid="msg-delete"
            aria-label={`删除${what.zh}及之后的消息 Delete ${what.en} and everything after it`}
            title={`删除${what.zh}及之后的消息 Delete ${what.en} and everything after it`}
            disabled={busy}
            onClick={() => setConfirming(true)}
          >
            <DeleteIcon />
          </button>
          {edited && (
            <span className="muted small" data-testid="msg-edited">
              已编辑 edited
            </span>
          )}
          {copied !== null && (
            <span className="muted small" role="status" data-testid="msg-copied">
              {copied ? '已复制 Copied' : '复制失败 Copy failed'}
            </span>
          )}
        </fieldset>
      )}
      {confirming && (
        <DeleteConfirm
          question={deleteQuestion}
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            onDelete();
          }}
        />
      )}
    </div>
  );
}
