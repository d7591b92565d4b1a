import { MessageText } from '../markdown/MessageText.js';

interface Props {
  readonly text: string;
}

/**
 * The text of one chat message. Every message (player lines, replies, the streaming reply) is
 * rendered through this one component, so how message text looks changes in one place: sanitised
 * Markdown (`MessageText`), where a reply's HTML is shown as the characters it is made of.
 */
export function MessageBody({ text }: Props) {
  return (
    <div className="message-body">
      <MessageText text={text} />
    </div>
  );
}
