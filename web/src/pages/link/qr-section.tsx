import type { LinkCreated } from '../../api/types.js';

export interface QrSectionProps {
  link: LinkCreated;
  /** Present on a trial link's page: the token that may read the trial link. */
  trialToken?: string;
}

/** The link's QR code: designed and downloaded here. */
export function QrSection(_props: QrSectionProps) {
  return (
    <section aria-labelledby="qr-heading">
      <h2 id="qr-heading">QR code</h2>
      <p>A QR code that opens this link.</p>
    </section>
  );
}
