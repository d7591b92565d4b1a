/** Where the CLI writes; injectable so tests capture it. */
export interface CliOutput {
  /** Writes a line. */
  line(text?: string): void;
  /** Writes text without ending the line (a streamed reply as it arrives). */
  write(text: string): void;
  /** Replaces the transient status line (TTY only; plain output ignores it). */
  status(text: string): void;
  /** Clears the status line. */
  clearStatus(): void;
  readonly isTTY: boolean;
}

/**
 * Output to a stream: in a terminal a single status line is redrawn in place; otherwise only
 * whole lines are written, so logs and pipes stay clean.
 * @param stream - usually `process.stdout`
 */
export function streamOutput(stream: NodeJS.WriteStream = process.stdout): CliOutput {
  const isTTY = stream.isTTY === true;
  let hasStatus = false;
  const clear = () => {
    if (hasStatus) stream.write('\r\x1b[2K');
    hasStatus = false;
  };
  return {
    isTTY,
    line(text = '') {
      clear();
      stream.write(`${text}\n`);
    },
    write(text) {
      clear();
      stream.write(text);
    },
    status(text) {
      if (!isTTY) return;
      const width = Math.max(20, (stream.columns ?? 80) - 1);
      stream.write(`\r\x1b[2K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
      hasStatus = true;
    },
    clearStatus: clear,
  };
}
