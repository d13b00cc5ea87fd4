import { useState } from 'preact/hooks';
import { CopyButton } from '../../ui/copy-button.js';
import { formatInstant } from '../../ui/format.js';
import { QrImage } from './qr-image.js';
import { savedTrials, type SavedTrial } from './trial-store.js';
import './trial-list.css';

/**
 * The trial links this browser made, from its own storage, so that a reload keeps them in sight: each
 * with its short URL, its QR code to download, and what happens when its 7 days are up.
 */
export function TrialList({ fresh }: { fresh?: string }) {
  const [trials] = useState(() => savedTrials());
  const shown = trials.filter((trial) => trial.id !== fresh && trial.shortUrl !== undefined);
  if (shown.length === 0) return null;
  return (
    <section aria-labelledby="trials-heading" class="trial-list">
      <h2 id="trials-heading">Your trial links</h2>
      <p>
        Kept in this browser only. After 7 days a trial link stops: its short URL and QR code show a page saying it expired.{' '}
        <a href="/app/signup">Create an account</a> or <a href="/app/signin">sign in</a> and keep them: they then last, with their visits.
      </p>
      <ul class="trial-cards">
        {shown.map((trial) => (
          <TrialCard key={trial.id} trial={trial} />
        ))}
      </ul>
    </section>
  );
}

function TrialCard({ trial }: { trial: SavedTrial }) {
  const expired = trial.expiresAt !== undefined && trial.expiresAt <= Date.now();
  return (
    <li class="card trial-card">
      <p class="trial-url">
        <a href={trial.shortUrl} class="mono">
          {trial.shortUrl}
        </a>{' '}
        <CopyButton text={trial.shortUrl!} label="Copy short URL" name={`Copy short URL ${trial.shortUrl}`} />
      </p>
      {trial.target && <p class="hint mono destination">{trial.target}</p>}
      {expired ? (
        <p>Expired {formatInstant(trial.expiresAt!)}: it no longer redirects.</p>
      ) : (
        <>
          {trial.expiresAt !== undefined && <p>Works until {formatInstant(trial.expiresAt)}.</p>}
          <QrImage
            id={trial.id}
            trialToken={trial.token}
            label={`QR code that opens ${trial.qrUrl ?? trial.shortUrl}`}
            size={96}
            download={`qr-${trial.slug ?? trial.id}.svg`}
          />
          <p>
            <a href={`/app/trial/${trial.id}`}>Visits and QR code</a>
          </p>
        </>
      )}
    </li>
  );
}
