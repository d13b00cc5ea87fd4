import { useEffect, useRef } from 'preact/hooks';
import type { Link } from '../../api/types.js';
import { differences, FIELD_LABELS, type Edit, type EditableField } from './edit-changes.js';

interface ConflictProps {
  base: Link;
  current: Link;
  edit: Edit;
  busy: boolean;
  onReapply: () => void;
  onDiscard: () => void;
}

const shown = (value: string) => (value === '' ? <em>(empty)</em> : value);

/** A stale edit: what changed since the person opened the link, and their edit, to reapply or drop. */
export function Conflict({ base, current, edit, busy, onReapply, onDiscard }: ConflictProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [current.version]);
  const changed = differences(base, current);
  return (
    <section class="notice warning conflict" aria-labelledby="conflict-heading">
      <h3 id="conflict-heading" ref={heading} tabIndex={-1}>
        This link changed while you were editing it
      </h3>
      <p>Your edit was not saved. Someone (perhaps you, in another tab or a program) saved a newer version:</p>
      <table class="cards">
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">When you opened it</th>
            <th scope="col">Now</th>
            <th scope="col">Your edit</th>
          </tr>
        </thead>
        <tbody>
          {changed.length === 0 && (
            <tr>
              <td colSpan={4}>No field differs: only its version moved on. Reapplying is safe.</td>
            </tr>
          )}
          {changed.map(({ field, before, now }) => (
            <tr key={field}>
              <th scope="row">{FIELD_LABELS[field]}</th>
              <td class="mono" data-label="When you opened it">
                {shown(before)}
              </td>
              <td class="mono" data-label="Now">
                {shown(now)}
              </td>
              <td class="mono" data-label="Your edit">
                {field in edit ? shown(edit[field as EditableField]!) : 'unchanged'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>Reapplying sets only the fields you edited, on top of the new version.</p>
      <div class="actions">
        <button type="button" class="primary" onClick={onReapply} disabled={busy}>
          Reapply my edit
        </button>
        <button type="button" class="secondary" onClick={onDiscard} disabled={busy}>
          Discard my edit
        </button>
      </div>
    </section>
  );
}
