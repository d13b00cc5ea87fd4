import { useEffect, useState } from 'preact/hooks';
import { apiBlob } from '../../api/client.js';
import { ErrorMessage } from '../../ui/form.js';

interface QrImageProps {
  id: string;
  trialToken?: string;
  label: string;
  /** Shown size in CSS pixels (the SVG scales). */
  size?: number;
  /** When given, a "Download QR code" link saves the SVG under this file name. */
  download?: string;
}

/**
 * The link's QR code as the API draws it, shown as an image from a blob URL: an <img> never runs
 * what an SVG may contain, so nothing needs sanitizing.
 */
export function QrImage({ id, trialToken, label, size = 192, download }: QrImageProps) {
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
  if (!url) return <span class="hint">Drawing the QR code…</span>;
  return (
    <>
      <img class="qr-image" src={url} width={size} height={size} alt={label} />
      {download && (
        <a class="button secondary" href={url} download={download}>
          Download QR code
        </a>
      )}
    </>
  );
}
