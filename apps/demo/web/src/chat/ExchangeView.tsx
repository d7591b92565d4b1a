import { MessageMeta, TokenCount } from '../prompt/MessageMeta.js';
import type { MessageTokens } from '../../../src/wire/prompt.js';
import type { ChatExchange } from '../../../src/wire/chat.js';
import { BranchIcon, RegenerateIcon } from './icons.js';
import { MessageRow } from './MessageRow.js';
import { SwipeControls } from './SwipeControls.js';

interface Props {
  readonly exchange: ChatExchange;
  readonly sessionId: string;
  /** The exchange's token counts, once loaded. */
  readonly tokens?: MessageTokens | undefined;
  readonly speaker: string;
  /** The chat's last exchange: its reply can be regenerated (and › on its last step does that). */
  readonly isLast: boolean;
  /** How many exchanges there are from this one to the end (for the delete confirmation). */
  readonly fromHereOn: number;
  readonly busy: boolean;
  readonly onSwipe: (step: number) => void;
  readonly onRegenerate: () => void;
  /** Resolves with why the edit was refused, or null when it is saved. */
  readonly onEdit: (edit: { readonly input?: string; readonly reply?: string }) => Promise<string | null>;
  /** Deletes this exchange and every later one; `fromReply`: the player's line goes back to the input box. */
  readonly onDelete: (fromReply: boolean) => void;
  /** Starts a new chat holding everything up to and including this exchange (this one is kept as it is). */
  readonly onBranch: () => void;
}

/**
 * One committed exchange: the player's line and the kept reply, each with its tools; the reply
 * also has its swipes (‹ n / m ›) and, when it is the last one, regenerate. A turn is one line and
 * one reply, so deleting either removes the turn — deleting from the reply gives the player's
 * line back to the input box, so nothing they wrote is lost. Branch (on the reply) opens a new
 * chat that holds everything up to here, leaving this one as it is.
 */
export function ExchangeView({ exchange, sessionId, tokens, speaker, isLast, fromHereOn, busy, onSwipe, onRegenerate, onEdit, onDelete, onBranch }: Props) {
  const position = Math.max(0, exchange.steps.findIndex((candidate) => candidate.step === exchange.step));
  const later = fromHereOn * 2;
  const showSwipes = exchange.steps.length > 1 || isLast;
  return (
    <div className="exchange" data-testid="exchange" data-turn-id={exchange.turnId}>
      <MessageRow
        side="user"
        testId="user-line"
        text={exchange.input}
        busy={busy}
        what={{ zh: '你的话', en: 'your line' }}
        deleteQuestion={`删除这句话及之后的全部 ${later} 条消息？ Delete this line and everything after it (${later} messages)?`}
        onSave={(input) => onEdit({ input })}
        onDelete={() => onDelete(false)}
        meta={tokens && <TokenCount tokens={tokens.input} />}
      />
      <MessageRow
        side="assistant"
        testId="reply"
        text={exchange.reply}
        speaker={speaker}
        reasoning={exchange.reasoning}
        // "edited" belongs to the step (its line, its reply or both): shown once, with the reply.
        edited={exchange.edited}
        busy={busy}
        what={{ zh: '这条回复', en: 'the reply' }}
        deleteQuestion={`删除这条回复及之后的全部消息（共 ${later - 1} 条；你的这句话会放回输入框）？ Delete this reply and everything after it (${later - 1} messages; your line goes back to the input box)?`}
        onSave={(reply) => onEdit({ reply })}
        onDelete={() => onDelete(true)}
        meta={<MessageMeta sessionId={sessionId} turnId={exchange.turnId} tokens={tokens?.reply} />}
        tools={
          <>
            {showSwipes && (
              <SwipeControls
                position={position}
                total={exchange.steps.length}
                disabled={busy}
                onPrevious={() => onSwipe(exchange.steps[position - 1]?.step ?? exchange.step)}
                onNext={() => onSwipe(exchange.steps[position + 1]?.step ?? exchange.step)}
                onGenerate={isLast ? onRegenerate : undefined}
              />
            )}
            {isLast && (
              <button type="button" className="tool" data-testid="reply-regenerate" aria-label="重新生成 Regenerate the reply" title="重新生成 Regenerate the reply" disabled={busy} onClick={onRegenerate}>
                <RegenerateIcon />
              </button>
            )}
            <button type="button" className="tool" data-testid="reply-branch" aria-label="从这里分支出新对话 Branch a new chat from here" title="从这里分支出新对话 Branch a new chat from here" disabled={busy} onClick={onBranch}>
              <BranchIcon />
            </button>
          </>
        }
      />
    </div>
  );
}
