import { MessageBody } from './MessageBody.js';

/** A reply being written: a new turn, a regeneration (in its turn's place) or a continuation. */
export interface PendingReply {
  readonly kind: 'turn' | 'regenerate' | 'continue';
  /** The turn it replaces in the list; null for a new turn (shown after the others). */
  readonly turnId: string | null;
  readonly input: string;
  /** What is visible so far (a continuation starts with the reply it extends). */
  readonly reply: string;
  readonly reasoning?: string;
  /**
   * True once the stream reported `kernel/turn-committed`: the reply is saved and only the work
   * after it (story settlement, DIO) is still running, so Stop can no longer undo anything.
   */
  readonly committed?: boolean;
}

/** The running exchange: the player's line and the reply as it streams in (no tools until it is committed). */
export function StreamingExchange({ pending, speaker }: { readonly pending: PendingReply; readonly speaker: string }) {
  return (
    <div className="exchange" data-testid="exchange-streaming" data-kind={pending.kind}>
      <div className="message-row user">
        <div className="bubble user" data-testid="user-line">
          <MessageBody text={pending.input} />
        </div>
      </div>
      <div className="message-row assistant">
        <div className="bubble assistant streaming" data-testid="reply-streaming" aria-busy="true">
          <span className="speaker">{speaker}</span>
          {pending.reasoning && (
            <details className="reasoning" data-testid="reasoning">
              <summary>思考过程 Reasoning</summary>
              <pre>{pending.reasoning}</pre>
            </details>
          )}
          <MessageBody text={pending.reply || '…'} />
        </div>
      </div>
    </div>
  );
}
