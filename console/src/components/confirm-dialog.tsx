// A destructive act asks first: its button opens a modal dialog that says what will happen, with
// the act and a way back; Escape or the way back closes it and nothing happens. Focus starts on the
// way back, so Enter pressed by habit keeps things as they are.
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { useAction } from './use-load.ts';

interface Props {
  /** The button that opens the dialog (its accessible name). */
  label: string;
  /** A shorter text to show on it, where a row says the rest ("Remove"); its name stays `label`. */
  text?: string;
  /** The dialog's heading, a question ("Delete the cohort Pro plan?"). */
  title: string;
  /** What confirming does: the dialog's destructive button. */
  confirm: string;
  /** The way back (default "Cancel"). */
  keep?: string;
  /** What will happen, in words. */
  children: ComponentChildren;
  /** Performs the act; an error it throws stays in the dialog. */
  onConfirm: () => Promise<void>;
  /** The opening button's class (default "destructive"; "secondary" or "link" for quieter ones). */
  buttonClass?: string;
  disabled?: boolean;
}

export function ConfirmButton({
  label,
  text,
  title,
  confirm,
  keep = 'Cancel',
  children,
  onConfirm,
  buttonClass = 'destructive',
  disabled,
}: Props) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        class={buttonClass}
        aria-label={text === undefined ? undefined : label}
        disabled={disabled}
        onClick={() => setOpen(true)}
      >
        {text ?? label}
      </button>
      {open ? (
        <ConfirmDialog title={title} confirm={confirm} keep={keep} onConfirm={onConfirm} onClose={() => setOpen(false)}>
          {children}
        </ConfirmDialog>
      ) : null}
    </>
  );
}

export function ConfirmDialog({
  title,
  confirm,
  keep = 'Cancel',
  children,
  onConfirm,
  onClose,
}: Omit<Props, 'label' | 'text' | 'buttonClass' | 'disabled'> & { onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const keepButton = useRef<HTMLButtonElement>(null);
  const action = useAction();
  const headingId = useId();
  const bodyId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (!element.open) element.showModal();
    keepButton.current?.focus();
    // Escape closes a modal dialog by itself: the state follows.
    const closed = () => onClose();
    element.addEventListener('close', closed);
    return () => {
      element.removeEventListener('close', closed);
      if (element.open) element.close();
    };
  }, []);
  const act = () =>
    action.run(async () => {
      await onConfirm();
      dialog.current?.close();
    });
  return (
    <dialog ref={dialog} class="confirm" aria-labelledby={headingId} aria-describedby={bodyId}>
      <h2 id={headingId}>{title}</h2>
      <div id={bodyId} class="confirm-body">
        {children}
      </div>
      {/* The refusal is about the act the dialog names: its detail alone, and the dialog stays open. */}
      {action.error ? (
        <p class="error" role="alert">
          {action.error.detail}
        </p>
      ) : null}
      <div class="actions">
        <button type="button" class="destructive" disabled={action.busy} onClick={act}>
          {confirm}
        </button>
        <button type="button" ref={keepButton} disabled={action.busy} onClick={() => dialog.current?.close()}>
          {keep}
        </button>
      </div>
    </dialog>
  );
}
