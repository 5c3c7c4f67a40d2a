import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

/**
 * A table in a frame. Where the table fits, the frame is nothing (the header then sticks to the
 * top of the window as the page scrolls); where it does not (a phone), the table scrolls sideways
 * inside it instead of widening the page, and the frame becomes a region named `label` that the
 * keyboard can reach and scroll.
 */
export function Table({ label, children }: { label: string; children: ComponentChildren }) {
  const frame = useRef<HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);
  // measured before the first paint, then whenever the frame or the table changes size
  useLayoutEffect(() => {
    const element = frame.current!;
    const measure = () => setScrolls(element.scrollWidth > element.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    observer.observe(element.firstElementChild!);
    return () => observer.disconnect();
  }, []);
  return (
    <div
      ref={frame}
      class={scrolls ? 'table-frame scrolls' : 'table-frame'}
      role={scrolls ? 'region' : undefined}
      aria-label={scrolls ? label : undefined}
      tabIndex={scrolls ? 0 : undefined}
    >
      <table>{children}</table>
    </div>
  );
}

/**
 * A value that never wraps: cut short with an ellipsis at its column's width (a `wide` one gets more),
 * whole in its title (on hover) and in its text (so in the name a screen reader reads). A link
 * is cut the same way by its own class (`<Link class="clip" title=…>`), so its focus ring shows whole.
 */
export function Clip({ text, size, children }: { text: string; size?: 'wide'; children?: ComponentChildren }) {
  return (
    <span class={size ? `clip clip-${size}` : 'clip'} title={text}>
      {children ?? text}
    </span>
  );
}
