import { parseSse, type SseMessage } from './web-fixture.js';

/** An open `text/event-stream` read message by message. */
export interface SseReader {
  /** The next message whose event is `event` (earlier ones are skipped); rejects after `timeoutMs`. */
  next(event: string, timeoutMs?: number): Promise<SseMessage>;
  close(): void;
}

/**
 * Opens a server-sent events stream with `fetch` and reads it incrementally.
 * @param url - the stream's URL
 */
export async function openSse(url: string): Promise<SseReader> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal, headers: { accept: 'text/event-stream' } });
  if (!response.ok || !response.body) throw new Error(`GET ${url}: HTTP ${response.status}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const queue: SseMessage[] = [];
  const read = async (): Promise<void> => {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ${url} ended`);
    buffer += decoder.decode(value, { stream: true });
    const blocks = buffer.split(/\r?\n\r?\n/);
    buffer = blocks.pop() ?? '';
    // Comment-only blocks (keep-alives) carry no message.
    queue.push(...parseSse(blocks.filter((block) => block.split(/\r?\n/).some((line) => line.startsWith('data:'))).join('\n\n')));
  };
  return {
    async next(event, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = queue.findIndex((message) => message.event === event);
        if (index >= 0) return queue.splice(0, index + 1).at(-1) as SseMessage;
        queue.length = 0;
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new Error(`no "${event}" message on ${url} within ${timeoutMs} ms`);
        await Promise.race([read(), new Promise((_, reject) => setTimeout(() => reject(new Error(`no "${event}" message on ${url} within ${timeoutMs} ms`)), remaining).unref())]);
      }
    },
    close: () => controller.abort(),
  };
}
