import { useId, useState } from 'preact/hooks';
import { API_LIMITS } from '../../../../src/platform/api-limits.js';
import { Field } from '../../ui/form.js';
import { callToActionProblem, printSizeCm, printSizeProblem, type QrDesign } from './qr-design.js';
import { DISTANCES, formatCm, formatDistance, pixelsAt300Dpi, reachMetres, smallestPrintCm } from './print-size.js';
import type { ControlsProps } from './qr-controls.js';

const { callToActionMaxLength, printMinCm, printMaxCm } = API_LIMITS.qr;

/** What a printed piece needs: a frame with a call to action, the short URL under the code, and its size. */
export function PrintControls({ design, onDesign }: ControlsProps) {
  const id = useId();
  return (
    <fieldset class="qr-print">
      <legend>For print</legend>
      <Field
        label="Call to action"
        value={design.callToAction}
        onValue={(callToAction) => onDesign({ callToAction })}
        maxLength={callToActionMaxLength}
        error={callToActionProblem(design.callToAction)}
        hint={`For example “Scan for the menu”: drawn in a frame around the code, at most ${callToActionMaxLength} characters. Leave it empty for no frame.`}
      />
      <div class="field checkbox">
        <input
          id={`${id}-url`}
          type="checkbox"
          checked={design.printShortUrl}
          onChange={(e) => onDesign({ printShortUrl: e.currentTarget.checked })}
          aria-describedby={`${id}-url-hint`}
        />
        <label for={`${id}-url`}>Print the short URL under the code</label>
        <p class="hint" id={`${id}-url-hint`}>
          For people who cannot scan: the short URL without https://, as text under the code.
        </p>
      </div>
      <Field
        label="Print size (cm)"
        value={design.printSizeCm}
        onValue={(printSizeCm) => onDesign({ printSizeCm })}
        inputMode="decimal"
        error={printSizeProblem(design)}
        hint={<PrintSizeHint design={design} />}
      />
      <Reach design={design} />
    </fieldset>
  );
}

function PrintSizeHint({ design }: { design: QrDesign }) {
  const cm = printSizeCm(design);
  return (
    <>
      The width of the printed piece, {printMinCm} to {printMaxCm} cm: the PDF’s page
      {cm !== undefined && `, and the PNG at 300 dpi (${pixelsAt300Dpi(cm)} pixels wide)`}.
    </>
  );
}

/** How far the printed code scans from (a code scans from up to ten times its width), and a warning below what is needed. */
function Reach({ design }: { design: QrDesign }) {
  const id = useId();
  const [metres, setMetres] = useState(DISTANCES[0]!.metres);
  const cm = printSizeCm(design);
  const framed = design.callToAction.trim() !== '';
  const smallest = smallestPrintCm(metres, framed);
  return (
    <div class="field">
      <label for={id}>Scanning distance</label>
      <select id={id} value={String(metres)} onChange={(e) => setMetres(Number(e.currentTarget.value))} aria-describedby={`${id}-reach`}>
        {DISTANCES.map((distance) => (
          <option value={String(distance.metres)}>
            {formatDistance(distance.metres)}: {distance.where}
          </option>
        ))}
      </select>
      <div class="qr-reach">
        <p class="hint" id={`${id}-reach`}>
          From {formatDistance(metres)} away, print it at least {formatCm(smallest)} wide (a code scans from about ten times its own width
          {framed ? ', and the frame takes a little of the piece' : ''}).
          {smallest > printMaxCm && ` That is more than the ${printMaxCm} cm offered here: the SVG and the PDF are vector, so a print shop can enlarge them.`}
          {cm !== undefined && ` At ${formatCm(cm)} it scans from up to ${formatDistance(reachMetres(cm, framed))}.`}
        </p>
        <div role="status">
          {cm !== undefined && cm < smallest && (
            <p class="notice warning">
              Too small to scan from {formatDistance(metres)}: at {formatCm(cm)} phones must come within {formatDistance(reachMetres(cm, framed))}. Print it at
              least {formatCm(smallest)} wide.
            </p>
          )}
        </div>
      </div>
    </div>
  );
}
