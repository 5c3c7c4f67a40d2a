import { useEffect, useState } from 'preact/hooks';

/**
 * The reader's choices of display that this browser remembers (localStorage, not the tab's
 * session): the theme and the rows' density. Each is kept only while it differs from the
 * default (the system's colour scheme, dense rows), so a reader who never chooses stores nothing
 * and follows the system when it changes. The root element carries them for design/tokens.css.
 */
export type Theme = 'light' | 'dark';
export type Density = 'dense' | 'comfortable';

const THEME_KEY = 'orbit.theme';
const DENSITY_KEY = 'orbit.density';
const CHANGED = 'orbit:display';
const SYSTEM_DARK = window.matchMedia('(prefers-color-scheme: dark)');
const root = document.documentElement;

function systemTheme(): Theme {
  return SYSTEM_DARK.matches ? 'dark' : 'light';
}

/** The theme shown now: the reader's, or the system's. */
export function currentTheme(): Theme {
  return (root.dataset.theme as Theme | undefined) ?? systemTheme();
}

function currentDensity(): Density {
  return root.dataset.density === 'comfortable' ? 'comfortable' : 'dense';
}

/** Puts the remembered choices on the page; called once, before the first render. */
export function applyPreferences(): void {
  const theme = localStorage.getItem(THEME_KEY);
  if (theme === 'light' || theme === 'dark') root.dataset.theme = theme;
  if (localStorage.getItem(DENSITY_KEY) === 'comfortable') root.dataset.density = 'comfortable';
}

/** Keeps `value` under `key` unless it is the default, and shows it on the root element. */
function remember(key: string, attribute: 'theme' | 'density', value: string, fallback: string): void {
  if (value === fallback) {
    localStorage.removeItem(key);
    delete root.dataset[attribute];
  } else {
    localStorage.setItem(key, value);
    root.dataset[attribute] = value;
  }
  window.dispatchEvent(new Event(CHANGED));
}

/** A value of the display that follows changes made anywhere on the page (and the system's scheme). */
function useDisplay<T>(read: () => T): T {
  const [value, setValue] = useState(read);
  useEffect(() => {
    const update = () => setValue(read());
    window.addEventListener(CHANGED, update);
    SYSTEM_DARK.addEventListener('change', update);
    return () => {
      window.removeEventListener(CHANGED, update);
      SYSTEM_DARK.removeEventListener('change', update);
    };
  }, []);
  return value;
}

export function useTheme(): [Theme, (theme: Theme) => void] {
  return [useDisplay(currentTheme), (theme) => remember(THEME_KEY, 'theme', theme, systemTheme())];
}

export function useDensity(): [Density, (density: Density) => void] {
  return [useDisplay(currentDensity), (density) => remember(DENSITY_KEY, 'density', density, 'dense')];
}
