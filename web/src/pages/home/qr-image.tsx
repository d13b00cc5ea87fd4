import { useEffect, useState } from 'preact/hooks';
import { apiBlob } from '../../api/client.js';
import { ErrorMessage } from '../../ui/form.js';

/**
 * The link's QR code as the API draws it, shown as an image from a blob URL: an <img> never runs
 * what an SVG may contain, so nothing needs sanitizing.
 */
export function QrImage({ id, trialToken, label }: { id: string; trialToken?: string; label: string }) {
  const [url, setUrl] = useState<string>();
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let objectUrl: string | undefined;
    let live = true;
    apiBlob('POST', `/links/${id}/qr`, { size: 256 }, { trialToken })
      .then((svg) => {
        objectUrl = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
        if (live) setUrl(objectUrl);
      })
      .catch((failure: unknown) => live && setError(failure));
    return () => {
      live = false;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [id, trialToken]);
  if (error) return <ErrorMessage error={error} />;
  return url ? <img class="qr-image" src={url} width={192} height={192} alt={label} /> : <span class="hint">Drawing the QR code…</span>;
}
