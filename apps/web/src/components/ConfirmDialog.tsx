import { useEffect, useRef, type ReactNode } from 'react';

/** A modal <dialog>: focus is trapped inside, Escape cancels. */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  tone = 'danger',
  busy = false,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** A destructive confirmation (delete, revoke) is red; a release (promote) the usual primary. */
  tone?: 'danger' | 'primary';
  /** While the confirmed request runs: the button cannot be pressed twice. */
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    element?.showModal();
    return () => element?.close();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" onCancel={onCancel} className="dialog">
      <h2 id="confirm-title">{title}</h2>
      {children}
      <div className="row">
        <button type="button" className="secondary" onClick={onCancel} autoFocus>
          Cancel
        </button>
        <button type="button" className={tone === 'danger' ? 'danger' : undefined} onClick={onConfirm} disabled={busy}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
