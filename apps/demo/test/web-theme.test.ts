import { describe, expect, it } from 'vitest';
import { readThemePreference, resolveTheme, storeThemePreference, THEME_STORAGE_KEY, type ThemeStorage } from '../web/src/theme/theme.js';

// The colour-scheme choice (the browser test web-browser-rendering.test.ts proves it in a page).

function memoryStorage(initial: Record<string, string> = {}): ThemeStorage & { readonly items: Map<string, string> } {
  const items = new Map(Object.entries(initial));
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

describe('theme preference', () => {
  it('follows the system unless the player chose light or dark', () => {
    expect(resolveTheme('system', true)).toBe('dark');
    expect(resolveTheme('system', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('dark', false)).toBe('dark');
  });

  it('stores a choice, forgets it for "system", and reads anything unknown as "system"', () => {
    const storage = memoryStorage();
    expect(readThemePreference(storage)).toBe('system');
    storeThemePreference(storage, 'dark');
    expect(storage.items.get(THEME_STORAGE_KEY)).toBe('dark');
    expect(readThemePreference(storage)).toBe('dark');
    storeThemePreference(storage, 'system');
    expect(storage.items.has(THEME_STORAGE_KEY)).toBe(false);
    expect(readThemePreference(memoryStorage({ [THEME_STORAGE_KEY]: 'purple' }))).toBe('system');
  });

  it('survives a storage that throws (blocked in a privacy mode)', () => {
    const blocked: ThemeStorage = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
      removeItem: () => {
        throw new Error('SecurityError');
      },
    };
    expect(readThemePreference(blocked)).toBe('system');
    expect(() => storeThemePreference(blocked, 'dark')).not.toThrow();
    expect(readThemePreference(undefined)).toBe('system');
  });
});
