import { mismatchWords, ScanMismatch } from '../../components/qr/scan-mismatch.js';
import type { LeftOut } from './qr-zip.js';

/**
 * What the ZIP left out, each with its link's page (where the design can be changed): links whose code
 * could not be drawn, and files that did not read back as their link's QR URL or could not be made.
 */
export function ZipReport({ leftOut }: { leftOut: LeftOut[] }) {
  return (
    <div role="status">
      {leftOut.length > 0 && (
        <div class="notice warning">
          <p>Not in the ZIP:</p>
          <ul>
            {leftOut.map((entry) => (
              <li key={`${entry.link.id}:${entry.file ?? ''}`}>
                <a href={`/app/links/${encodeURIComponent(entry.link.id)}`}>{entry.file ?? entry.link.shortUrl}</a>: {why(entry)}.
              </li>
            ))}
          </ul>
          {leftOut.some((entry) => entry.error instanceof ScanMismatch) && (
            <p>A file is left out when it does not scan as its link: try more contrast, a larger print size or square dots on the link’s page.</p>
          )}
        </div>
      )}
    </div>
  );
}

function why({ link, file, error }: LeftOut): string {
  if (file === undefined) return 'its code could not be drawn (paused or gone since)';
  if (error instanceof ScanMismatch) return mismatchWords(error, link.qrUrl);
  return 'it could not be made in this browser';
}
