import type { ComponentChildren, Ref } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { Busy, ErrorMessage } from './form.js';
import type { MessageOverrides } from '../api/messages.js';

interface ConfirmProps {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
  error?: unknown;
  errorOverrides?: MessageOverrides;
  danger?: boolean;
}

/**
 * A modal confirmation on the native <dialog>: the rest of the page is inert while it is open,
 * Escape cancels, and focus returns to the control that opened it. Cancel takes focus first, so
 * Enter never confirms by accident.
 */
export function ConfirmDialog(props: ConfirmProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const id = useId();
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (props.open && !element.open) {
      element.showModal();
      cancel.current?.focus();
    }
    if (!props.open && element.open) element.close();
  }, [props.open]);
  return (
    <dialog
      ref={dialog}
      aria-labelledby={props.open ? `${id}-title` : undefined}
      aria-describedby={props.open ? `${id}-body` : undefined}
      onKeyDown={keepFocusInside}
      onCancel={(event) => {
        event.preventDefault();
        if (!props.busy) props.onCancel();
      }}
    >
      {props.open && <DialogContent {...props} id={id} cancel={cancel} />}
    </dialog>
  );
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * Tab from the last control goes to the first and Shift+Tab from the first to the last: a modal
 * <dialog> makes the page inert but lets Tab leave for the browser's own toolbar.
 */
function keepFocusInside(event: KeyboardEvent): void {
  if (event.key !== 'Tab') return;
  const dialog = event.currentTarget as HTMLDialogElement;
  const controls = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)];
  const first = controls[0];
  const last = controls[controls.length - 1];
  if (!first || !last) return;
  const active = document.activeElement;
  if (event.shiftKey && (active === first || !dialog.contains(active))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !dialog.contains(active))) {
    event.preventDefault();
    first.focus();
  }
}

/** Rendered only while open: a closed dialog keeps no names or controls that a search by label could find. */
function DialogContent(props: ConfirmProps & { id: string; cancel: Ref<HTMLButtonElement> }) {
  const { id, cancel } = props;
  return (
    <>
      <h2 id={`${id}-title`}>{props.title}</h2>
      <div id={`${id}-body`}>{props.children}</div>
      <ErrorMessage error={props.error} overrides={props.errorOverrides} />
      <div class="actions">
        <button type="button" ref={cancel} class="secondary" onClick={props.onCancel} disabled={props.busy}>
          Cancel
        </button>
        <button type="button" class={props.danger ? 'danger' : 'primary'} onClick={props.onConfirm} disabled={props.busy}>
          {props.confirmLabel}
        </button>
        <Busy busy={props.busy ?? false} />
      </div>
    </>
  );
}
