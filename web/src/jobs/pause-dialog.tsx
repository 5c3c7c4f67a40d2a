import { useEffect, useRef, useState } from 'preact/hooks';
import { Problem } from '../shared/ui';
import './pause-dialog.css';

export interface PauseRequest {
  note?: string;
  resumeAt?: string;
}

/**
 * Asks why the job pauses and, optionally, when it resumes by itself (in the browser's time
 * zone); the API's refusal (a resume instant in the past, a year ahead) shows in the dialog.
 */
export function PauseDialog({
  name,
  onPause,
  onClose,
}: {
  name: string;
  onPause: (request: PauseRequest) => Promise<void>;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [note, setNote] = useState('');
  const [resumeAt, setResumeAt] = useState('');
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    try {
      await onPause({
        note: note.trim() || undefined,
        resumeAt: resumeAt ? new Date(resumeAt).toISOString() : undefined,
      });
      dialog.current?.close();
    } catch (error) {
      setProblem((error as Error).message);
    }
  };
  return (
    <dialog ref={dialog} aria-labelledby="pause-title" onClose={onClose}>
      <h2 id="pause-title">Pause {name}?</h2>
      <form onSubmit={(e) => void submit(e)}>
        <p>The schedule stops; runs already queued still run.</p>
        <label for="pause-note">Note</label>
        <textarea
          id="pause-note"
          rows={3}
          maxLength={1000}
          value={note}
          onInput={(e) => setNote(e.currentTarget.value)}
        />
        <label for="pause-resume-at">Resume at (optional, your time zone)</label>
        <input
          id="pause-resume-at"
          type="datetime-local"
          value={resumeAt}
          onInput={(e) => setResumeAt(e.currentTarget.value)}
        />
        <Problem error={problem} />
        <div class="actions">
          <button type="submit">Pause</button>
          <button type="button" onClick={() => dialog.current?.close()}>
            Keep it running
          </button>
        </div>
      </form>
    </dialog>
  );
}
