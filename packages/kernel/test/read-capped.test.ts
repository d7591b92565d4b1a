import { readCappedText } from '@troupe/kernel/util';
import { describe, expect, it } from 'vitest';

function streamOf(...parts: string[]): { stream: ReadableStream<Uint8Array>; pulled: () => number; cancelled: () => boolean } {
  let index = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[index++];
      if (part === undefined) controller.close();
      else controller.enqueue(new TextEncoder().encode(part));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, pulled: () => index, cancelled: () => cancelled };
}

describe('readCappedText', () => {
  it('reads a body within the cap, including multi-byte text split across chunks', async () => {
    const bytes = new TextEncoder().encode('莉娅');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 2));
        controller.enqueue(bytes.slice(2));
        controller.close();
      },
    });
    expect(await readCappedText(stream, 6)).toBe('莉娅');
    expect(await readCappedText(null, 10)).toBe('');
  });

  it('stops reading and cancels the stream as soon as the cap is passed', async () => {
    const source = streamOf('aaaa', 'bbbb', 'cccc', 'dddd', 'eeee');
    expect(await readCappedText(source.stream, 6)).toBeUndefined();
    expect(source.cancelled()).toBe(true);
    expect(source.pulled()).toBeLessThan(5);
  });
});
