interface Props {
  readonly text: string;
}

/**
 * The text of one chat message. Every message (player lines, replies, the streaming reply) is
 * rendered through this one component, so how message text looks — plain text today, a sanitised
 * Markdown renderer later — changes in one place. Plain text: React escapes it, so a reply's
 * HTML is shown as the characters it is made of.
 */
export function MessageBody({ text }: Props) {
  return <div className="message-body">{text}</div>;
}
