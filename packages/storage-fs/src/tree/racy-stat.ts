// When may a file's stat vouch for content read earlier? Only when any later write must change
// the stat signature (`ino:size:mtimeNs:ctimeNs`). A write sets ctime to "now" as the file system
// clock sees it, rounded down to its granularity, so a write landing in the same clock tick as
// the previous one, with the same size, leaves the signature as it was (git's "racily clean"
// entries). Content is trusted only when the file's last change (ctime) lies a safety window
// before the scan that preceded the read started: every write after that scan then gets a later
// ctime. A file changed too recently is read again on its next use, until it is old enough.

/** Safety window for file systems with sub-millisecond timestamps: a few kernel clock ticks (≤ 10 ms each). */
export const FINE_RACY_WINDOW_MS = 50;
/** Safety window for timestamps in whole milliseconds or coarser (FAT's 2 s, HFS+'s 1 s, some network shares). */
export const COARSE_RACY_WINDOW_MS = 2_100;

const SIGNATURE = /^\d+:\d+:(\d+):(\d+)$/;

/**
 * Whether content read after a stat scan that started at `scanStartedAt` (this host's clock) is
 * still the file's content for as long as its signature stays `signature`. False for any
 * signature that does not carry nanosecond times (another fs layer): such content is read again.
 * The file system's clock is assumed to agree with this host's to within the safety window.
 * @param signature - the file's stat signature when its content was read
 * @param scanStartedAt - `Date.now()` taken before that stat
 * @returns true when a later same-size write cannot have kept the signature
 */
export function statVouchesForContent(signature: string, scanStartedAt: number): boolean {
  const match = SIGNATURE.exec(signature);
  if (!match) return false;
  const [, mtimeNs = '', ctimeNs = ''] = match;
  const coarse = mtimeNs.endsWith('000000') && ctimeNs.endsWith('000000');
  const window = coarse ? COARSE_RACY_WINDOW_MS : FINE_RACY_WINDOW_MS;
  // Milliseconds are enough here (a double holds ns since 1970 only to ~256 ns anyway).
  const changedAtMs = Number(ctimeNs) / 1e6;
  return Number.isFinite(changedAtMs) && changedAtMs + window < scanStartedAt;
}
