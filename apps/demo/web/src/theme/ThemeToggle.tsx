import { useEffect, useState } from 'react';
import { applyTheme, onSystemThemeChange, safeLocalStorage } from './apply-theme.js';
import { readThemePreference, storeThemePreference, type ThemePreference } from './theme.js';

const LABELS: Record<ThemePreference, string> = {
  system: '跟随系统 System',
  light: '浅色 Light',
  dark: '深色 Dark',
};

/**
 * The colour scheme switch in the top bar: follow the system (the default), light or dark. The
 * choice is kept in `localStorage`; while it is "system", a change of the system's scheme applies at once.
 */
export function ThemeToggle() {
  const [preference, setPreference] = useState<ThemePreference>(() => readThemePreference(safeLocalStorage()));
  useEffect(() => {
    applyTheme(preference);
    if (preference !== 'system') return;
    return onSystemThemeChange(() => applyTheme('system'));
  }, [preference]);
  return (
    <label className="theme-toggle">
      <span className="sr-only">配色 Theme</span>
      <select
        data-testid="theme-select"
        aria-label="配色 Theme"
        value={preference}
        onChange={(e) => {
          const next = e.target.value as ThemePreference;
          storeThemePreference(safeLocalStorage(), next);
          setPreference(next);
        }}
      >
        {(Object.keys(LABELS) as ThemePreference[]).map((value) => (
          <option key={value} value={value}>
            {LABELS[value]}
          </option>
        ))}
      </select>
    </label>
  );
}
