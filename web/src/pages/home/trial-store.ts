import type { LinkCreated } from '../../api/types.js';

/** Where trial links and their tokens stay: in this browser only, never in a URL. */
const TRIAL_STORE = 'trial-links';
/** Set when the person chose "Keep my trial links" on signing up or in: the links page then keeps them. */
const KEEP_CHOICE = 'keep-trial-links';
/** A day past expiry the page can still say "expired" rather than that this browser does not know the link. */
const GRACE_MS = 86_400_000;

export interface SavedTrial {
  id: string;
  token: string;
  expiresAt?: number;
  shortUrl?: string;
  qrUrl?: string;
  target?: string;
  slug?: string;
}

function readAll(): SavedTrial[] {
  try {
    const saved = JSON.parse(localStorage.getItem(TRIAL_STORE) ?? '[]') as unknown;
    return Array.isArray(saved) ? (saved as SavedTrial[]).filter((entry) => typeof entry?.id === 'string' && typeof entry.token === 'string') : [];
  } catch {
    return [];
  }
}

function writeAll(entries: SavedTrial[]): void {
  try {
    localStorage.setItem(TRIAL_STORE, JSON.stringify(entries.slice(0, 20)));
  } catch {
    // Storage may be off (private mode): the link still works, only its page cannot be reopened here.
  }
}

export function rememberTrial(link: LinkCreated): void {
  if (link.trialToken === undefined) return;
  const saved: SavedTrial = {
    id: link.id,
    token: link.trialToken,
    expiresAt: link.expiresAt,
    shortUrl: link.shortUrl,
    qrUrl: link.qrUrl,
    target: link.target,
    slug: link.slug,
  };
  writeAll([saved, ...readAll().filter((entry) => entry.id !== link.id)]);
}

/** The saved token of a trial link, kept a day past its expiry. */
export function savedTrial(id: string, now = Date.now()): SavedTrial | undefined {
  return savedTrials(now).find((entry) => entry.id === id);
}

/** This browser's trial links, newest first, until a day past their expiry. */
export function savedTrials(now = Date.now()): SavedTrial[] {
  return readAll().filter((entry) => entry.expiresAt === undefined || entry.expiresAt + GRACE_MS > now);
}

/** The trial links that can still be kept (not expired). */
export const keepableTrials = (now = Date.now()): SavedTrial[] => savedTrials(now).filter((entry) => entry.expiresAt === undefined || entry.expiresAt > now);

/** A trial link this browser no longer needs to hold: kept in an account, or gone. */
export function forgetTrial(id: string): void {
  writeAll(readAll().filter((entry) => entry.id !== id));
}

export function chooseToKeep(keep: boolean): void {
  try {
    if (keep) localStorage.setItem(KEEP_CHOICE, '1');
    else localStorage.removeItem(KEEP_CHOICE);
  } catch {
    // Without storage the choice cannot outlive the page; the links page offers it again.
  }
}

export function choseToKeep(): boolean {
  try {
    return localStorage.getItem(KEEP_CHOICE) === '1';
  } catch {
    return false;
  }
}
