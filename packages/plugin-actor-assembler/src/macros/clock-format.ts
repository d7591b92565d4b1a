// moment.js-style date formatting (English), enough for SillyTavern's time macros and the
// formats presets pass to `{{datetimeformat}}`, on an injected clock and time zone.

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Calendar fields of one instant in one zone. */
export interface CalendarFields {
  readonly year: number;
  readonly month: number; // 1-12
  readonly day: number;
  readonly weekday: number; // 0 = Sunday
  readonly hour: number; // 0-23
  readonly minute: number;
  readonly second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * Calendar fields of `ms` in `timeZone` (or at a fixed UTC offset in minutes).
 * @param ms - milliseconds since the epoch
 * @param zone - IANA zone name, or a number of minutes east of UTC
 * @returns the fields
 * @throws {RangeError} for an unknown zone name
 */
export function calendarFields(ms: number, zone: string | number | undefined): CalendarFields {
  if (typeof zone === 'number') {
    const shifted = new Date(ms + zone * 60_000);
    return {
      year: shifted.getUTCFullYear(),
      month: shifted.getUTCMonth() + 1,
      day: shifted.getUTCDate(),
      weekday: shifted.getUTCDay(),
      hour: shifted.getUTCHours(),
      minute: shifted.getUTCMinutes(),
      second: shifted.getUTCSeconds(),
    };
  }
  const key = zone ?? '';
  let formatter = formatters.get(key);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      ...(zone !== undefined ? { timeZone: zone } : {}),
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      weekday: 'short',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(key, formatter);
  }
  const parts: Record<string, string> = {};
  for (const part of formatter.formatToParts(ms)) parts[part.type] = part.value;
  return {
    year: Number(parts['year']),
    month: Number(parts['month']),
    day: Number(parts['day']),
    weekday: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(parts['weekday'] ?? ''),
    hour: Number(parts['hour']) % 24,
    minute: Number(parts['minute']),
    second: Number(parts['second']),
  };
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');
const ordinal = (value: number) => {
  const tens = value % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][value % 10] ?? 'th');
  return `${value}${value % 10 > 3 ? 'th' : suffix}`;
};

const LOCALE_FORMATS: Readonly<Record<string, string>> = {
  LT: 'h:mm A',
  LTS: 'h:mm:ss A',
  L: 'MM/DD/YYYY',
  LL: 'MMMM D, YYYY',
  LLL: 'MMMM D, YYYY h:mm A',
  LLLL: 'dddd, MMMM D, YYYY h:mm A',
};
const TOKENS = /\[([^\]]*)]|LTS|LT|LLLL|LLL|LL|L|YYYY|YY|MMMM|MMM|MM|Mo|M|DDDD|Do|DD|D|dddd|ddd|dd|d|HH|H|hh|h|mm|m|ss|s|A|a/g;

/**
 * Formats calendar fields with moment.js tokens (`YYYY-MM-DD HH:mm`, `LT`, `LL`, `[literal]`, …).
 * @param fields - calendar fields
 * @param format - moment format string
 * @returns the formatted text
 */
export function formatCalendar(fields: CalendarFields, format: string): string {
  const expanded = format.replace(/\[[^\]]*]|LTS|LT|LLLL|LLL|LL|L/g, (token) => (token.startsWith('[') ? token : (LOCALE_FORMATS[token] ?? token)));
  const hour12 = fields.hour % 12 === 0 ? 12 : fields.hour % 12;
  return expanded.replace(TOKENS, (token, literal: string | undefined) => {
    if (literal !== undefined) return literal;
    switch (token) {
      case 'YYYY':
        return String(fields.year);
      case 'YY':
        return pad(fields.year % 100);
      case 'MMMM':
        return MONTHS[fields.month - 1] ?? '';
      case 'MMM':
        return (MONTHS[fields.month - 1] ?? '').slice(0, 3);
      case 'MM':
        return pad(fields.month);
      case 'Mo':
        return ordinal(fields.month);
      case 'M':
        return String(fields.month);
      case 'Do':
        return ordinal(fields.day);
      case 'DD':
        return pad(fields.day);
      case 'D':
        return String(fields.day);
      case 'dddd':
        return WEEKDAYS[fields.weekday] ?? '';
      case 'ddd':
        return (WEEKDAYS[fields.weekday] ?? '').slice(0, 3);
      case 'dd':
        return (WEEKDAYS[fields.weekday] ?? '').slice(0, 2);
      case 'd':
        return String(fields.weekday);
      case 'HH':
        return pad(fields.hour);
      case 'H':
        return String(fields.hour);
      case 'hh':
        return pad(hour12);
      case 'h':
        return String(hour12);
      case 'mm':
        return pad(fields.minute);
      case 'm':
        return String(fields.minute);
      case 'ss':
        return pad(fields.second);
      case 's':
        return String(fields.second);
      case 'A':
        return fields.hour < 12 ? 'AM' : 'PM';
      case 'a':
        return fields.hour < 12 ? 'am' : 'pm';
      default:
        return token;
    }
  });
}

/**
 * moment's `humanize()`: "a few seconds", "5 minutes", "a day", …; with `withSuffix`,
 * "in 3 hours" / "3 hours ago".
 * @param ms - a duration in milliseconds (sign = direction)
 * @param withSuffix - add "in" / "ago"
 * @returns the words
 */
export function humanizeDuration(ms: number, withSuffix: boolean): string {
  const seconds = Math.round(Math.abs(ms) / 1000);
  const minutes = Math.round(seconds / 60);
  const hours = Math.round(minutes / 60);
  const days = Math.round(hours / 24);
  const months = Math.round(days / 30.4);
  const years = Math.round(days / 365);
  let words: string;
  if (seconds < 45) words = 'a few seconds';
  else if (seconds < 90) words = 'a minute';
  else if (minutes < 45) words = `${minutes} minutes`;
  else if (minutes < 90) words = 'an hour';
  else if (hours < 22) words = `${hours} hours`;
  else if (hours < 36) words = 'a day';
  else if (days < 26) words = `${days} days`;
  else if (days < 45) words = 'a month';
  else if (days < 320) words = `${months} months`;
  else if (days < 548) words = 'a year';
  else words = `${years} years`;
  if (!withSuffix) return words;
  return ms >= 0 ? `in ${words}` : `${words} ago`;
}
