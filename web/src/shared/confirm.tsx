import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/** A modal question (the page behind it is inert until it is answered); Escape keeps things as they are. */
export function Confirm({
  title,
  children,
  confirm,
  onConfirm,
  onClose,
}: {
  title: string;
  children: ComponentChildren;
  confirm: string;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" onClose={onClose}>
      <h2 id="confirm-title">{title}</h2>
      {children}
      <div class="actions">
        <button type="button" class="danger" onClick={onConfirm}>
          {confirm}
        </button>
        <button type="button" onClick={() => dialog.current?.close()}>
          Keep it
        </button>
      </div>
    </dialog>
  );
}
