import type { FailureCode } from '../../api/client.js';
import type { RowBody } from './check-rows.js';

/** A row's body as it was sent, `maxCredits` included: a resend must carry exactly this (same key, same payload). */
export type SentBody = RowBody & { maxCredits?: number };

/** What the page keeps of a link it made, for the table and the QR codes. */
export interface MadeLink {
  id: string;
  slug: string;
  shortUrl: string;
  qrUrl: string;
  title: string;
}

/**
 * What became of a row's last request. `sending` is written before the request leaves and stays when
 * no answer came (a reload, a lost connection): the link may or may not exist, so the row is sent
 * again with the same key and body, and the API answers with the link it made, if it made one.
 */
export type Outcome =
  { state: 'sending'; body: SentBody } | { state: 'made'; body: SentBody; link: MadeLink } | { state: 'failed'; body: SentBody; error: FailureCode };

/** One import: its id (part of every row's key), the rows' text and each row's outcome by key. */
export interface SavedImport {
  id: string;
  text: string;
  outcomes: Record<string, Outcome>;
}

const STORAGE_KEY = 'import:links';

export const newImport = (text = ''): SavedImport => ({ id: crypto.randomUUID(), text, outcomes: {} });

/**
 * The import this tab is working on, kept in sessionStorage: a reload, a sign-in after the session
 * ended, or Back and Forward find it as it was, and send no row twice.
 */
export function loadImport(): SavedImport {
  try {
    const text = sessionStorage.getItem(STORAGE_KEY);
    const saved = text === null ? undefined : (JSON.parse(text) as SavedImport);
    if (saved && typeof saved.id === 'string' && typeof saved.outcomes === 'object') return saved;
  } catch {
    // Unreadable: start afresh.
  }
  return newImport();
}

export function saveImport(saved: SavedImport): void {
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(saved));
  } catch {
    // Storage may be off or full: the import still works, it only cannot outlive the page.
  }
}
