import Anser from 'anser';
import type { ExecutionOutput } from '../api/client';

/** One of the 16 named colours; 256-colour and true-colour text keeps the default colour. */
const named = (colour: string | null): colour is string =>
  !!colour && !colour.startsWith('ansi-palette') && !colour.startsWith('ansi-truecolor');

/** Colours and decorations as classes (styles.css), so the page needs no inline style. */
function classesOf(entry: Anser.AnserJsonEntry): string | undefined {
  const classes = [
    named(entry.fg) ? entry.fg : '',
    named(entry.bg) ? `${entry.bg}-bg` : '',
    ...entry.decorations.map((decoration) => `ansi-${decoration}`),
  ].filter(Boolean);
  return classes.length > 0 ? classes.join(' ') : undefined;
}

/** Terminal text with its ANSI colours; every character of it stays text (Preact never parses it as HTML). */
function Ansi({ text }: { text: string }) {
  const entries = Anser.ansiToJson(text, { use_classes: true, remove_empty: true });
  return (
    <>
      {entries.map((entry, i) => (
        <span key={i} class={classesOf(entry)}>
          {entry.content}
        </span>
      ))}
    </>
  );
}

function Stream({
  name,
  label,
  text,
  following,
}: {
  name: 'stdout' | 'stderr';
  label: string;
  text: string;
  /** Still queued or running: what is empty now may fill. */
  following: boolean;
}) {
  return (
    <div class={`stream stream-${name}`}>
      <h3 id={`output-${name}`}>{label}</h3>
      {text === '' ? (
        <p class="empty">{following ? 'Nothing yet.' : 'No output.'}</p>
      ) : (
        <pre aria-labelledby={`output-${name}`} tabIndex={0}>
          <Ansi text={text} />
        </pre>
      )}
    </div>
  );
}

export function OutputView({ output, following }: { output: ExecutionOutput | undefined; following: boolean }) {
  return (
    <section aria-labelledby="output-heading" class="output">
      <h2 id="output-heading">Output</h2>
      {following && <p class="following">Following while it runs…</p>}
      {output?.truncated && <p class="note">Older output was dropped: only the last part of each stream is kept.</p>}
      <Stream name="stdout" label="Standard output (stdout)" text={output?.stdout ?? ''} following={following} />
      <Stream name="stderr" label="Standard error (stderr)" text={output?.stderr ?? ''} following={following} />
    </section>
  );
}
