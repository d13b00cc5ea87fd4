import type { ComponentChildren } from 'preact';
import type { LinkCreated } from '../../api/types.js';
import { printSizeCm, type QrDesign } from '../../components/qr/qr-design.js';
import { printPdf, printPng } from '../../components/qr/qr-downloads.js';
import { formatCm, pixelsAt300Dpi } from '../../components/qr/print-size.js';
import { saveFile, svgSize } from '../../components/qr/render-qr-image.js';
import { mismatchWords, ScanMismatch } from '../../components/qr/scan-mismatch.js';
import type { QrPreview } from '../../components/qr/use-qr-preview.js';
import { Busy, ErrorMessage } from '../../ui/form.js';
import { useAction } from '../../ui/use-action.js';

const OVERRIDES = { invalid_request: 'The service refused to draw this design. Check the colours, the logo and the call to action.' };

interface ResultProps {
  preview: QrPreview;
  link: LinkCreated;
  design: QrDesign;
  /** Why no code is drawn (a refused design, an inactive link), or undefined. */
  blocked?: string;
  /** The "Save design" controls, between the scan check and the downloads. */
  children: ComponentChildren;
}

/** The preview, whether it scans, and the downloads, offered only for a code that was read back as the link's QR URL. */
export function QrResult({ preview, link, design, blocked, children }: ResultProps) {
  const { qrUrl, slug } = link;
  const scan = preview.scan;
  const offered = preview.current && preview.svg !== undefined && ((scan?.state === 'read' && scan.text === qrUrl) || scan?.state === 'failed');
  const cm = printSizeCm(design);
  const download = useAction(async (format: 'SVG' | 'PNG' | 'PDF') => {
    const svg = preview.svg!;
    if (format === 'SVG') return saveFile(new Blob([svg], { type: 'image/svg+xml' }), `qr-${slug}.svg`);
    const size = `${String(cm).replace('.', '_')}cm`;
    if (format === 'PNG') return saveFile(await printPng(svg, cm!, qrUrl), `qr-${slug}-${size}-300dpi.png`);
    return saveFile(await printPdf(svg, cm!, qrUrl), `qr-${slug}-${size}.pdf`);
  });
  const size = preview.svg ? svgSize(preview.svg) : undefined;
  return (
    <div class="qr-result">
      <div class="qr-preview">
        {preview.url && size ? (
          <img src={preview.url} alt={`QR code for ${qrUrl}`} width={size.width} height={size.height} class={preview.current ? undefined : 'qr-stale'} />
        ) : (
          <p class="hint">{blocked ?? 'The preview appears here.'}</p>
        )}
      </div>
      <Busy busy={preview.loading} text="Drawing the code…" />
      <ErrorMessage error={preview.error} overrides={OVERRIDES} />
      <ScanStatus preview={preview} qrUrl={qrUrl} />
      {children}
      <div class="actions">
        <button type="button" class="secondary" disabled={!offered || download.busy} onClick={() => void download.run('SVG')}>
          Download SVG
        </button>
        <button type="button" class="secondary" disabled={!offered || cm === undefined || download.busy} onClick={() => void download.run('PNG')}>
          Download PNG
        </button>
        <button type="button" class="secondary" disabled={!offered || cm === undefined || download.busy} onClick={() => void download.run('PDF')}>
          Download PDF
        </button>
        <Busy busy={download.busy} text="Making the file and reading it back…" />
      </div>
      <div role="alert" class="alert-region">
        {download.error !== null && <p class="notice error">{downloadProblem(download.error, qrUrl)}</p>}
      </div>
      <p class="hint">
        The SVG is the service’s own drawing. The PNG is drawn in your browser at 300 dpi of the print size
        {cm !== undefined && ` (${formatCm(cm)}: ${pixelsAt300Dpi(cm)} pixels wide)`}, and the PDF is vector, one page of the print size. Each is read back with
        a QR decoder before it is downloaded.
      </p>
    </div>
  );
}

function downloadProblem(error: unknown, qrUrl: string): string {
  if (!(error instanceof ScanMismatch)) return 'The file could not be made in this browser. Try again, or download the SVG.';
  return `The ${error.format} was not downloaded: ${mismatchWords(error, qrUrl)}. Try more contrast, a larger print size or square dots.`;
}

/** Whether the code shown decodes to the link's QR URL, announced when it changes; nothing while the code shown is not the design's. */
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
