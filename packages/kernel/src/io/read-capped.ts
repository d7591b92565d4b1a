/**
 * Reads a byte stream, stopping as soon as it grows past `maxBytes` — so a body without a
 * `content-length` (or with a lying one) can never fill memory. Used by every HTTP client and
 * server in Troupe that reads untrusted bodies (text or uploaded files).
 * @param body - a response or request body (`null` reads as no bytes)
 * @param maxBytes - the largest body accepted
 * @returns the bytes, or `undefined` when the body was larger (the stream is cancelled)
 */
export async function readCappedBytes(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array | undefined> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/**
 * Reads a byte stream as UTF-8 text with the same cap as {@link readCappedBytes}.
 * @param body - a response or request body (`null` reads as `''`)
 * @param maxBytes - the largest body accepted
 * @returns the text, or `undefined` when the body was larger (the stream is cancelled)
 */
export async function readCappedText(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<string | undefined> {
  const bytes = await readCappedBytes(body, maxBytes);
  return bytes === undefined ? undefined : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}
