import { useState } from 'preact/hooks';
import type { LinkCreated } from '../../api/types.js';
import { QrControls } from '../../components/qr/qr-controls.js';
import { designProblem, designRequest, INITIAL_DESIGN, type QrDesign } from '../../components/qr/qr-design.js';
import { canvasToPng, saveFile } from '../../components/qr/render-qr-image.js';
import { useQrPreview, type QrPreview } from '../../components/qr/use-qr-preview.js';
import { Busy, ErrorMessage } from '../../ui/form.js';
import '../../components/qr/qr-designer.css';

export interface QrSectionProps {
  link: LinkCreated;
  /** Present on a trial link's page: the token that may read the trial link. */
  trialToken?: string;
}

/**
 * The link's QR code: designed here, previewed from the API's SVG, checked with a QR decoder against the
 * link's QR URL, and downloaded as that SVG or as a PNG drawn from it in the browser.
 */
export function QrSection({ link, trialToken }: QrSectionProps) {
  const [design, setDesign] = useState<QrDesign>(INITIAL_DESIGN);
  const active = link.status === 'active';
  const sendable = active && designProblem(design) === undefined;
  const preview = useQrPreview(link.id, sendable ? designRequest(design) : undefined, trialToken);
  return (
    <section aria-labelledby="qr-heading" class="qr-section">
      <h2 id="qr-heading">QR code</h2>
      <p>
        The code opens <span class="mono">{link.qrUrl}</span>, which counts its visits apart from the short URL's.
      </p>
      {!active && <p class="notice warning">QR codes are made for active links only: resume the link to design and download its code.</p>}
      <div class="qr-designer">
        <QrControls design={design} onDesign={(change) => setDesign((d) => ({ ...d, ...change }))} />
        <QrResult preview={preview} qrUrl={link.qrUrl} slug={link.slug} current={sendable} />
      </div>
    </section>
  );
}

function QrResult({ preview, qrUrl, slug, current }: { preview: QrPreview; qrUrl: string; slug: string; current: boolean }) {
  const ready = current && !preview.loading && preview.svg !== undefined && preview.scan !== undefined && preview.scan.state !== 'checking';
  const name = `qr-${slug}-${preview.request?.size ?? ''}`;
  const downloadSvg = () => preview.svg && saveFile(new Blob([preview.svg], { type: 'image/svg+xml' }), `${name}.svg`);
  const downloadPng = async () => preview.canvas && saveFile(await canvasToPng(preview.canvas), `${name}.png`);
  return (
    <div class="qr-result">
      <div class="qr-preview">
        {preview.url ? <img src={preview.url} alt={`QR code for ${qrUrl}`} width={256} height={256} /> : <p class="hint">The preview appears here.</p>}
      </div>
      <Busy busy={preview.loading} text="Drawing the code…" />
      <ErrorMessage error={preview.error} />
      <ScanStatus preview={preview} qrUrl={qrUrl} />
      <div class="actions">
        <button type="button" class="primary" disabled={!ready} onClick={downloadSvg}>
          Download SVG
        </button>
        <button type="button" class="secondary" disabled={!ready || !preview.canvas} onClick={() => void downloadPng()}>
          Download PNG
        </button>
      </div>
      <p class="hint">The PNG is drawn in your browser from the SVG, at the size chosen.</p>
    </div>
  );
}

/** Whether the code as drawn decodes to the link's QR URL, announced when it changes. */
function ScanStatus({ preview, qrUrl }: { preview: QrPreview; qrUrl: string }) {
  const scan = preview.scan;
  let line = '';
  let kind = 'info';
  if (scan?.state === 'checking') line = 'Checking that the code scans…';
  else if (scan?.state === 'failed') [line, kind] = ['The code could not be checked in this browser; test it with a phone before printing.', 'warning'];
  else if (scan?.state === 'read' && scan.text === qrUrl) [line, kind] = [`Scans to ${qrUrl} ✓`, 'success'];
  else if (scan?.state === 'read' && scan.text === null)
    [line, kind] = ['Does not scan: no QR code could be read from it. Try more contrast, a smaller logo or square dots.', 'error'];
  else if (scan?.state === 'read') [line, kind] = [`Scans to ${scan.text}, not to ${qrUrl} ✗`, 'error'];
  return (
    <div role="status" class="qr-scan">
      {line && <p class={`notice ${kind}`}>{line}</p>}
    </div>
  );
}
