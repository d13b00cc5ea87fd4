import { useId } from 'preact/hooks';
import { plural } from '../../ui/format.js';

/**
 * "Keep my trial links" (CONTRACT.md), checked by default, on signing up or in from a browser that
 * made trial links: they then become links of the account (the links page keeps them).
 */
export function KeepTrialsCheck({ count, checked, onChange }: { count: number; checked: boolean; onChange: (checked: boolean) => void }) {
  const id = useId();
  if (count === 0) return null;
  return (
    <div class="field checkbox">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.currentTarget.checked)} aria-describedby={`${id}-hint`} />
      <label for={id}>Keep my trial links</label>
      <p class="hint" id={`${id}-hint`}>
        This browser made {plural(count, 'trial link', 'trial links')}. Kept, they become links of your account with no expiry, counted as new links (this
        month’s free links first; past them you are asked before paying).
      </p>
    </div>
  );
}
