import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { cronInWords, dateTimeIn, LOCAL_ZONE } from '../../shared/format';
import { Time } from '../../shared/ui';

/** How long typing must pause before the preview asks the API. */
const PREVIEW_DELAY_MS = 250;

function usePreview(cron: string, timezone: string) {
  const [preview, setPreview] = useState<{ runs?: string[]; error?: string }>({});
  useEffect(() => {
    if (cron.trim() === '') {
      setPreview({});
      return;
    }
    let stale = false;
    const timer = setTimeout(() => {
      ok(
        api.GET('/schedules/preview', { params: { query: { cron, timezone: timezone || undefined, count: 5 } } }),
      ).then(
        ({ runs }) => !stale && setPreview({ runs }),
        (error: Error) => !stale && setPreview({ error: error.message }),
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [cron, timezone]);
  return preview;
}

/** The next fire times of the schedule being typed, in words and in the browser's and the job's zones. */
export function SchedulePreview({ cron, timezone }: { cron: string; timezone: string }) {
  const preview = usePreview(cron, timezone);
  const words = cronInWords(cron);
  return (
    <section aria-labelledby="preview-heading" class="preview" aria-live="polite">
      <h2 id="preview-heading">Next fire times</h2>
      {words && <p class="words">{words}</p>}
      {preview.error && <p class="field-error">{preview.error}</p>}
      {preview.runs && (
        <ol>
          {preview.runs.map((run) => (
            <li key={run}>
              <Time iso={run} exact />
              {timezone && timezone !== LOCAL_ZONE && (
                <span class="hint"> · {dateTimeIn(run, timezone)} in the job's time zone</span>
              )}
            </li>
          ))}
        </ol>
      )}
      {!preview.error && !preview.runs && <p class="hint">Type a cron expression to see when it fires.</p>}
    </section>
  );
}
