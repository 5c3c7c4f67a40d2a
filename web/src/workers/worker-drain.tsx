import { useState } from 'preact/hooks';
import { api, ok, type Worker } from '../api/client';
import { useSession } from '../auth/session';

/** Drain or Resume, for operators and admins; the audit trail records either. */
export function WorkerDrain({ worker, changed }: { worker: Worker; changed: () => void }) {
  const session = useSession();
  const [problem, setProblem] = useState<string>();
  if (!session.can('operator') || !worker.alive) return null;
  const act = async () => {
    setProblem(undefined);
    const path = { params: { path: { id: worker.id } } };
    try {
      await ok(worker.draining ? api.POST('/workers/{id}/resume', path) : api.POST('/workers/{id}/drain', path));
      changed();
    } catch (error) {
      setProblem((error as Error).message);
    }
  };
  return (
    <>
      <button
        type="button"
        class="quiet"
        onClick={() => void act()}
        aria-label={`${worker.draining ? 'Resume' : 'Drain'} ${worker.id}`}
      >
        {worker.draining ? 'Resume' : 'Drain'}
      </button>
      {problem && <span class="field-error">{problem}</span>}
    </>
  );
}
