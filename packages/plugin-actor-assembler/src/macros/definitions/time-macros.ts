import { calendarFields, formatCalendar, humanizeDuration } from '../clock-format.js';
import { type MacroCall, type MacroTable, macro } from '../definition.js';

const now = (call: MacroCall) => (call.env.now ?? Date.now)();
const format = (call: MacroCall, pattern: string, zone: string | number | undefined = call.env.timeZone) => formatCalendar(calendarFields(now(call), zone), pattern);

function parseTime(text: string): number {
  // moment parses "2023-01-01 12:00:00" (a space, no zone) as local time; Date needs the `T`.
  const value = Date.parse(/^\d{4}-\d{2}-\d{2} \d/.test(text) ? text.replace(' ', 'T') : text);
  if (Number.isNaN(value)) throw new Error(`{{timeDiff}}: "${text}" is not a date`);
  return value;
}

/** Time and date macros, on the injected clock (`env.now`) and zone (`env.timeZone`). */
export const TIME_MACROS: MacroTable = {
  time: macro(0, 1, (call) => {
    const offset = /^UTC([+-]\d+)$/.exec(call.args[0] ?? '');
    // SillyTavern's `UTC+2` is hours (moment's utcOffset takes hours when |n| < 16).
    return offset === null ? format(call, 'LT') : format(call, 'LT', Number(offset[1]) * 60);
  }),
  date: macro(0, 0, (call) => format(call, 'LL')),
  weekday: macro(0, 0, (call) => format(call, 'dddd')),
  isotime: macro(0, 0, (call) => format(call, 'HH:mm')),
  isodate: macro(0, 0, (call) => format(call, 'YYYY-MM-DD')),
  datetimeformat: macro(1, 1, (call) => format(call, call.args[0] ?? '')),
  idleduration: macro(0, 0, () => 'just now'),
  idle_duration: macro(0, 0, () => 'just now'),
  timediff: macro(2, 2, (call) => humanizeDuration(parseTime(call.args[0] ?? '') - parseTime(call.args[1] ?? ''), true)),
};
