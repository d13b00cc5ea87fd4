import { useEffect, useState } from 'preact/hooks';

type Encoder = typeof import('qrcode');
let encoder: Promise<Encoder> | undefined;

/** The path of a QR code's dark modules, one unit square each, drawn in the browser. */
async function qrPath(text: string): Promise<{ size: number; d: string }> {
  encoder ??= import('qrcode');
  const { create } = await encoder;
  const { modules } = create(text, { errorCorrectionLevel: 'M' });
  let d = '';
  for (let y = 0; y < modules.size; y++) {
    for (let x = 0; x < modules.size; x++) if (modules.get(x, y)) d += `M${x} ${y}h1v1h-1z`;
  }
  return { size: modules.size, d };
}

/**
 * A small QR code of the link's QR URL, so a row is recognised at a glance. Drawn here rather than asked
 * of the API (a page of 50 links would be 50 requests); the encoder loads on first use only, and the
 * link's own page has the designed code to download.
 */
export function QrThumb({ text }: { text: string }) {
  const [code, setCode] = useState<{ size: number; d: string }>();
  useEffect(() => {
    let live = true;
    void qrPath(text).then((drawn) => live && setCode(drawn));
    return () => {
      live = false;
    };
  }, [text]);
  const view = code ? code.size + 4 : 25;
  return (
    <svg class="qr-thumb" viewBox={`-2 -2 ${view} ${view}`} width="48" height="48" aria-hidden="true" focusable="false">
      <rect x="-2" y="-2" width={view} height={view} fill="#fff" />
      {code && <path d={code.d} fill="#000" />}
    </svg>
  );
}
