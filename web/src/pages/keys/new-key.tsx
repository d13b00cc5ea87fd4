import { useEffect, useRef } from 'preact/hooks';
import type { CreatedKey } from '../../api/types.js';
import { CopyButton } from '../../ui/copy-button.js';

/** The secret, shown once: it is not stored anywhere the website can read it again. */
export function NewKey({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [created.id]);
  return (
    <section class="new-key notice warning" aria-labelledby="new-key-heading">
      <h2 id="new-key-heading" ref={heading} tabIndex={-1}>
        Your new key “{created.name}”
      </h2>
      <p>
        <strong>Copy it now: it is shown only this once.</strong> Keep it out of web pages, apps people download, URLs and prompts. If it leaks, revoke it and
        make a new one.
      </p>
      <div class="field">
        <label for="new-key-value">API key</label>
        <div class="inline">
          <input id="new-key-value" class="mono" readOnly value={created.key} onFocus={(e) => e.currentTarget.select()} />
          <CopyButton text={created.key} label="Copy key" />
        </div>
      </div>
      <p>
        Send it as <code>Authorization: Bearer …</code>; the <a href="/app/api">API reference</a> lists every endpoint.
      </p>
      <button type="button" class="secondary" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}
