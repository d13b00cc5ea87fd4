import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { LinkCreated } from '../../api/types.js';
import type { QrDesignAnswerType } from '../../../../src/qr/design-schemas.js';
import { PrintControls } from '../../components/qr/print-controls.js';
import { QrControls } from '../../components/qr/qr-controls.js';
import { designFromSaved, designProblem, INITIAL_DESIGN, previewRequest, saveRequest, type QrDesign, type QrRequest } from '../../components/qr/qr-design.js';
import { useQrPreview } from '../../components/qr/use-qr-preview.js';
import { Busy, ErrorMessage } from '../../ui/form.js';
import { useAction } from '../../ui/use-action.js';
import { useResource } from '../../ui/use-resource.js';
import { QrResult } from './qr-result.js';
import '../../components/qr/qr-designer.css';

export interface QrSectionProps {
  link: LinkCreated;
  /** Present on a trial link's page: the token that may read the trial link. */
  trialToken?: string;
}

/**
 * The link's QR code: the design saved with the link comes back into the fields, is previewed from the
 * API's SVG, checked with a QR decoder against the link's QR URL, saved with "Save design", and
 * downloaded as that SVG, as a 300 dpi PNG or as a vector PDF at the print size.
 */
export function QrSection({ link, trialToken }: QrSectionProps) {
  const saved = useResource(() => api<QrDesignAnswerType>('GET', `/links/${encodeURIComponent(link.id)}/qr/design`, undefined, { trialToken }));
  const ready = saved.data !== undefined || (saved.error !== null && !saved.loading);
  return (
    <section aria-labelledby="qr-heading" class="qr-section">
      <h2 id="qr-heading">QR code</h2>
      <p>
        The code opens <span class="mono">{link.qrUrl}</span>, which counts its visits apart from the short URL's.
      </p>
      {link.status !== 'active' && <p class="notice warning">QR codes are made for active links only: resume the link to design and download its code.</p>}
      <Busy busy={!ready} text="Loading the saved design…" />
      <ErrorMessage error={saved.error} />
      {ready && <QrDesigner link={link} trialToken={trialToken} saved={saved.data?.saved ? saved.data.design : undefined} />}
    </section>
  );
}

/** Top-level keys in one order, so two requests compare equal whatever order their fields were set in. */
const keyOf = (request: QrRequest | undefined) => (request ? JSON.stringify(request, Object.keys(request).sort()) : '');

function QrDesigner({ link, trialToken, saved }: QrSectionProps & { saved?: QrRequest }) {
  const [design, setDesign] = useState<QrDesign>(() => (saved ? designFromSaved(saved) : INITIAL_DESIGN));
  const [savedKey, setSavedKey] = useState(() => (saved ? keyOf(saveRequest(designFromSaved(saved))) : undefined));
  const active = link.status === 'active';
  const drawable = active && designProblem(design) === undefined;
  const preview = useQrPreview(link.id, drawable ? previewRequest(design) : undefined, trialToken);
  const toSave = drawable ? saveRequest(design) : undefined;
  const save = useAction(async (request: QrRequest) => {
    await api<QrDesignAnswerType>('PUT', `/links/${encodeURIComponent(link.id)}/qr/design`, request, { trialToken });
    setSavedKey(keyOf(request));
  });
  return (
    <div class="qr-designer">
      <div>
        <QrControls design={design} onDesign={(change) => setDesign((d) => ({ ...d, ...change }))} />
        <PrintControls design={design} onDesign={(change) => setDesign((d) => ({ ...d, ...change }))} />
      </div>
      <QrResult preview={preview} link={link} design={design} blocked={blockedBy(active, design)}>
        <div class="actions">
          <button type="button" class="primary" disabled={!toSave || save.busy} onClick={() => toSave && void save.run(toSave)}>
            Save design
          </button>
          <Busy busy={save.busy} text="Saving the design…" />
        </div>
        <SavedState saved={savedKey} now={keyOf(saveRequest(design))} />
        <ErrorMessage error={save.error} />
      </QrResult>
    </div>
  );
}

function blockedBy(active: boolean, design: QrDesign): string | undefined {
  if (!active) return 'No code is drawn for a link that is not active.';
  return designProblem(design) === undefined ? undefined : 'No code is drawn while the design has a problem: see the fields.';
}

/** Whether the fields hold the design saved with the link. */
function SavedState({ saved, now }: { saved?: string; now: string }) {
  let line = 'Changes not saved: a reload shows the saved design.';
  if (saved === undefined) line = 'No design is saved with this link yet: a reload starts from the defaults.';
  else if (saved === now) line = 'This is the design saved with the link: a reload shows it, and the API’s export without a body draws it.';
  return (
    <p class="hint" role="status">
      {line}
    </p>
  );
}
