/**
 * A copy of `text` that shares no memory with a larger string. V8 represents a substring of 13+
 * characters as a view into its parent, so a line of `history.md` kept as a cache key (or a term
 * kept in an index) would keep that turn's whole `history.md` alive: one copy per turn.
 * @param text - a (possibly sliced) string
 * @returns an equal, flat string of its own
 */
export function ownString(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}
