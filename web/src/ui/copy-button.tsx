import { useState } from 'preact/hooks';

/**
 * Copies `text`; the clipboard API needs a secure context (HTTPS or localhost), elsewhere the older
 * selection copy is used. The result is announced.
 */
/** `name`, when given, is the button's accessible name (it should begin with the visible `label`). */
export function CopyButton({ text, label = 'Copy', name }: { text: string; label?: string; name?: string }) {
  const [result, setResult] = useState('');
  const copy = async () => {
    try {
      if (navigator.clipboard && window.isSecureContext) await navigator.clipboard.writeText(text);
      else legacyCopy(text);
      setResult('Copied');
    } catch {
      setResult('Could not copy: select the text and copy it yourself');
    }
    setTimeout(() => setResult(''), 4000);
  };
  return (
    <span class="copy">
      <button type="button" class="secondary" onClick={() => void copy()} aria-label={name}>
        {label}
      </button>
      <span role="status" class="copy-result">
        {result}
      </span>
    </span>
  );
}

function legacyCopy(text: string): void {
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  const copied = document.execCommand('copy');
  area.remove();
  if (!copied) throw new Error('copy refused');
}
