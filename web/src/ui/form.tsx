import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import { describeError, type MessageOverrides } from '../api/messages.js';

/** The input attributes the forms use. */
interface InputProps {
  type?: 'text' | 'email' | 'password' | 'url' | 'search';
  name?: string;
  autoComplete?: string;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  placeholder?: string;
  inputMode?: 'numeric' | 'decimal' | 'text' | 'email' | 'url';
  autoFocus?: boolean;
  pattern?: string;
}

interface FieldProps extends InputProps {
  label: string;
  value: string;
  onValue: (value: string) => void;
  hint?: ComponentChildren;
  /** What is wrong with this field's value: shown at the field, which is then marked invalid and described by it. */
  error?: ComponentChildren;
  /** Runs when the field loses focus (a URL without its scheme is completed then). */
  onBlur?: () => void;
}

/** A text input with its visible label and, when given, a hint the input is described by. */
export function Field({ label, value, onValue, hint, error, onBlur, type = 'text', ...input }: FieldProps) {
  const id = useId();
  const describedBy = [error ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- Preact types each input type apart; the cast joins them.
        type={type as 'text'}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        onBlur={onBlur}
        aria-describedby={describedBy || undefined}
        aria-invalid={error ? true : undefined}
        {...input}
      />
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

interface SubmitProps {
  label: string;
  busy: boolean;
  busyText?: string;
  disabled?: boolean;
  kind?: 'primary' | 'secondary' | 'danger';
}

/** The form's button, disabled while its request is in flight, with progress shown beside it. */
export function Submit({ label, busy, busyText = 'Working…', disabled, kind = 'primary' }: SubmitProps) {
  return (
    <div class="actions">
      <button type="submit" class={kind} disabled={busy || disabled} aria-disabled={busy || disabled}>
        {label}
      </button>
      <Busy busy={busy} text={busyText} />
    </div>
  );
}

/** Progress for anything slower than a moment: it fades in after a short delay (CSS), so quick answers never flash. */
export function Busy({ busy, text = 'Working…' }: { busy: boolean; text?: string }) {
  return (
    <span class="busy-region" role="status">
      {busy && (
        <span class="busy">
          <span class="spinner" aria-hidden="true" />
          {text}
        </span>
      )}
    </span>
  );
}

/** A failed request in plain words, announced when it appears. */
export function ErrorMessage({ error, overrides }: { error: unknown; overrides?: MessageOverrides }) {
  return (
    <div role="alert" class="alert-region">
      {error ? <p class="notice error">{describeError(error, overrides)}</p> : null}
    </div>
  );
}

export function Notice({ children, kind = 'info' }: { children: ComponentChildren; kind?: 'info' | 'success' | 'warning' }) {
  return <div class={`notice ${kind}`}>{children}</div>;
}

export const submitted = (handler: () => void) => (event: Event) => {
  event.preventDefault();
  handler();
};
