import { validateTreePath } from '@troupe/kernel/storage';

/**
 * Whether `path` is a caller path exactly as the kernel accepts it for a player write (relative,
 * allowlisted segments, already normalised). Store-private files copied in from elsewhere are
 * checked with this before any of their paths is used.
 * @param path - a candidate relative path
 * @returns true when the kernel accepts it unchanged
 */
export function isTreePath(path: string): boolean {
  try {
    return validateTreePath(path) === path;
  } catch {
    return false;
  }
}
