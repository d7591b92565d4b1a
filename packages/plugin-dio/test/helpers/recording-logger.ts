import type { LogFields, Logger } from '@troupe/kernel';

/** One recorded log line. */
export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: LogFields;
}

/** A logger that records every line (children share the record). */
export function recordingLogger(lines: LogLine[] = [], bindings: LogFields = {}): Logger & { readonly lines: LogLine[] } {
  const at = (level: LogLine['level']) => (message: string, fields: LogFields = {}) => {
    lines.push({ level, message, fields: { ...bindings, ...fields } });
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: (more) => recordingLogger(lines, { ...bindings, ...more }) };
}
