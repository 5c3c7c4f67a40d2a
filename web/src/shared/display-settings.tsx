import type { ComponentChildren } from 'preact';
import { useDensity, useTheme } from './preferences';
import { setKept } from './router';

function Switch({
  on,
  onChange,
  children,
}: {
  on: boolean;
  onChange: (on: boolean) => void;
  children: ComponentChildren;
}) {
  return (
    <button type="button" class="switch" aria-pressed={on ? 'true' : 'false'} onClick={() => onChange(!on)}>
      {children}
    </button>
  );
}

/** How the page looks to this reader: the theme and the rows (remembered by the browser), the zone of instants (in the address). */
export function DisplaySettings({ utc }: { utc: boolean }) {
  const [theme, setTheme] = useTheme();
  const [density, setDensity] = useDensity();
  return (
    <div class="display" role="group" aria-label="Display">
      <Switch on={theme === 'dark'} onChange={(on) => setTheme(on ? 'dark' : 'light')}>
        Dark theme
      </Switch>
      <Switch on={density === 'comfortable'} onChange={(on) => setDensity(on ? 'comfortable' : 'dense')}>
        Comfortable rows
      </Switch>
      <Switch on={utc} onChange={(on) => setKept('tz', on ? 'UTC' : undefined)}>
        Times in UTC
      </Switch>
    </div>
  );
}
