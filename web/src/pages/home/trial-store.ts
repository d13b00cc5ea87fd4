import type { LinkCreated } from '../../api/types.js';

/** Where trial links and their tokens stay: in this browser only, never in a URL. */
const TRIAL_STORE = 'trial-links';

export interface SavedTrial {
  id: string;
  token: string;
  expiresAt?: number;
}

function readAll(): SavedTrial[] {
  try {
    const saved = JSON.parse(localStorage.getItem(TRIAL_STORE) ?? '[]') as unknown;
    return Array.isArray(saved) ? (saved as SavedTrial[]).filter((entry) => typeof entry?.id === 'string' && typeof entry.token === 'string') : [];
  } catch {
    return [];
  }
}

export function rememberTrial(link: LinkCreated): void {
  if (link.trialToken === undefined) return;
  try {
    const others = readAll().filter((entry) => entry.id !== link.id);
    const saved: SavedTrial[] = [{ id: link.id, token: link.trialToken, expiresAt: link.expiresAt }, ...others];
    localStorage.setItem(TRIAL_STORE, JSON.stringify(saved.slice(0, 20)));
  } catch {
    // Storage may be off (private mode): the link still works, only its page cannot be reopened here.
  }
}

/**
 * The saved token of a trial link, kept a day past its expiry so that its page can still say the
 * link has expired rather than that this browser does not know it.
 */
export function savedTrial(id: string, now = Date.now()): SavedTrial | undefined {
  return readAll().find((entry) => entry.id === id && (entry.expiresAt === undefined || entry.expiresAt + 86_400_000 > now));
}
