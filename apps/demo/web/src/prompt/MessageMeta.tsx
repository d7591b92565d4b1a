import { useState } from 'react';
import { PromptView } from './PromptView.js';

interface Props {
  readonly sessionId: string;
  readonly turnId: string;
  /** Tokens of the reply, when counted. */
  readonly tokens: number | undefined;
}

/** Under a reply: its token count and the button that opens the prompt itemization of its turn. */
export function MessageMeta({ sessionId, turnId, tokens }: Props) {
  const [open, setOpen] = useState(false);
  return (
    <div className="message-meta">
      {tokens !== undefined && <TokenCount tokens={tokens} />}
      <button type="button" className="link small" data-testid="prompt-open" aria-label="查看提示词构成 Show the prompt itemization" onClick={() => setOpen(true)}>
        提示词 Prompt
      </button>
      {open && <PromptView sessionId={sessionId} turnId={turnId} onClose={() => setOpen(false)} />}
    </div>
  );
}

/** A message's token count, as SillyTavern shows it under each message. */
export function TokenCount({ tokens }: { readonly tokens: number }) {
  return (
    <span className="token-count small" data-testid="token-count" title="token 数 tokens">
      {tokens} tokens
    </span>
  );
}
