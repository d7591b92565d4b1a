import { readThemePreference, resolveTheme, type Theme, type ThemePreference } from './theme.js';

const DARK_QUERY = '(prefers-color-scheme: dark)';

/**
 * Whether the system prefers a dark scheme right now.
 * @returns true for dark
 */
export function systemPrefersDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia(DARK_QUERY).matches;
}

/**
 * Sets `data-theme` on `<html>` (the stylesheet's switch) and the `color-scheme` the browser uses
 * for scroll bars and form controls.
 * @param preference - the player's choice
 * @returns the scheme applied
 */
export function applyTheme(preference: ThemePreference): Theme {
  const theme = resolveTheme(preference, systemPrefersDark());
  document.documentElement.dataset.theme = theme;
  document.documentElement.style.colorScheme = theme;
  return theme;
}

/**
 * Applies the stored preference before the first render (no light flash on a dark system).
 * @returns the preference read
 */
export function applyStoredTheme(): ThemePreference {
  const preference = readThemePreference(safeLocalStorage());
  applyTheme(preference);
  return preference;
}

/**
 * Calls `listener` whenever the system's scheme changes.
 * @param listener - called with no arguments
 * @returns unsubscribe
 */
export function onSystemThemeChange(listener: () => void): () => void {
  if (typeof matchMedia !== 'function') return () => {};
  const query = matchMedia(DARK_QUERY);
  query.addEventListener('change', listener);
  return () => query.removeEventListener('change', listener);
}

/**
 * `localStorage`, or undefined where reading it throws (blocked storage).
 * @returns the storage
 */
export function safeLocalStorage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}
