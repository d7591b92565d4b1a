import { MessageBody } from './MessageBody.js';

interface Props {
  readonly speaker: string;
  readonly greetings: readonly string[];
  readonly index: number;
  readonly onSwipe: (index: number) => void;
}

/**
 * The chat's first message: the card's greeting, with the alternate greetings as its swipes
 * (‹ 2/3 ›). Its text goes through {@link MessageBody}, like every message of the chat.
 */
export function GreetingMessage({ speaker, greetings, index, onSwipe }: Props) {
  if (greetings.length === 0) return null;
  const text = greetings[index] ?? '';
  return (
    <div className="bubble assistant greeting" data-testid="greeting">
      <span className="speaker">{speaker}</span>
      <div data-testid="greeting-text">
        <MessageBody text={text} />
      </div>
      {greetings.length > 1 && (
        <span className="swipes">
          <button type="button" className="link" data-testid="swipe-prev" aria-label="上一个开场白 Previous greeting" title="上一个开场白 Previous greeting" disabled={index === 0} onClick={() => onSwipe(index - 1)}>
            ‹
          </button>
          <span className="muted small" data-testid="swipe-position">
            {index + 1}/{greetings.length}
          </span>
          <button type="button" className="link" data-testid="swipe-next" aria-label="下一个开场白 Next greeting" title="下一个开场白 Next greeting" disabled={index >= greetings.length - 1} onClick={() => onSwipe(index + 1)}>
            ›
          </button>
        </span>
      )}
    </div>
  );
}
