/** What the player chose: follow the system's colour scheme, or always light / dark. */
export type ThemePreference = 'system' | 'light' | 'dark';

/** The scheme the page shows. */
export type Theme = 'light' | 'dark';

/** Where the choice is kept in `localStorage`. */
export const THEME_STORAGE_KEY = 'troupe.theme';

const PREFERENCES: readonly ThemePreference[] = ['system', 'light', 'dark'];

/** The part of `Storage` the theme uses (so the functions run without a browser in tests). */
export interface ThemeStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * The stored preference; `system` when nothing (or something unknown) is stored, or storage is
 * unavailable (a privacy mode that throws on access).
 * @param storage - `localStorage`
 * @returns the preference
 */
export function readThemePreference(storage: ThemeStorage | undefined): ThemePreference {
  try {
    const value = storage?.getItem(THEME_STORAGE_KEY);
    return PREFERENCES.includes(value as ThemePreference) ? (value as ThemePreference) : 'system';
  } catch {
    return 'system';
  }
}

/**
 * Keeps the preference (`system` removes the entry, so a later change of the system's scheme is followed).
 * @param storage - `localStorage`
 * @param preference - the choice
 */
export function storeThemePreference(storage: ThemeStorage | undefined, preference: ThemePreference): void {
  try {
    if (preference === 'system') storage?.removeItem(THEME_STORAGE_KEY);
    else storage?.setItem(THEME_STORAGE_KEY, preference);
  } catch {
    // Not persisted (storage full or blocked): the choice still applies to this page.
  }
}

/**
 * The scheme to show.
 * @param preference - the player's choice
 * @param systemDark - whether the system prefers dark (`prefers-color-scheme: dark`)
 * @returns light or dark
 */
export function resolveTheme(preference: ThemePreference, systemDark: boolean): Theme {
  if (preference === 'system') return systemDark ? 'dark' : 'light';
  return preference;
}
