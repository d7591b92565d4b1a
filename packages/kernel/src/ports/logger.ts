/** Structured fields attached to a log line. */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * Diagnostics logger (not the session event log). Plugins receive one scoped to their name.
 * Compatible in shape with pino's child loggers.
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `bindings` to every line. */
  child(bindings: LogFields): Logger;
}

/** A logger that drops everything; the kernel's default so libraries stay quiet. */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};

/**
 * A logger writing one JSON line per entry to stderr, for apps that want to see diagnostics.
 * @param level - the lowest level printed
 * @param bindings - fields added to every line
 */
export function consoleLogger(level: 'debug' | 'info' | 'warn' | 'error' = 'info', bindings: LogFields = {}): Logger {
  const levels = ['debug', 'info', 'warn', 'error'] as const;
  const threshold = levels.indexOf(level);
  const write = (at: (typeof levels)[number]) => (message: string, fields?: LogFields) => {
    if (levels.indexOf(at) < threshold) return;
    process.stderr.write(`${JSON.stringify({ level: at, message, ...bindings, ...fields })}\n`);
  };
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (more) => consoleLogger(level, { ...bindings, ...more }),
  };
}
