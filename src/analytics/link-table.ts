/** Tables made by this thread; a table mirrored from another thread keeps that thread's id. */
let made = 0;

/**
 * A table of strings as one string for another thread (copied in one piece, where an array is cloned
 * string by string). No value may contain a newline or be empty.
 */
export const joinLines = (values: string[]): string => values.join('\n');
export const splitLines = (text: string): string[] => (text === '' ? [] : text.split('\n'));

/** Entries of a link table as a message: from which index, and the ids and accounts as newline-joined strings. */
export interface LinkTableSlice {
  table: number;
  from: number;
  ids: string;
  /** '' for a trial link (no account). */
  accounts: string;
}

/**
 * A link as the redirect path hands it to the recorder: the cached slug itself (redirects.ts), it
 * remembers its index in the last link table that took it (table 0 and index -1 before any did), so a
 * visit finds it without a lookup (the lookup by id was 2.7% of the CPU under the redirect benchmark's
 * load).
 */
export interface LinkRef {
  readonly id: string;
  readonly accountId: string | null;
  /** The id of the table that last took it (an id, not the table: an old table must not be kept alive). */
  table: number;
  index: number;
}

/**
 * The distinct links of a recorder's day buffers and each one's account, by index, shared by every
 * buffer the recorder fills. A handover to the recording thread sends only the entries that thread
 * has not been sent (day-visits.ts, toMessage): in steady traffic none, where sending each second's
 * ten thousand link ids held the event loop for 5 to 13 ms (joining and serialising them; docs/
 * benchmarks.md). The recorder starts a new table past MAX_LINKS links, so memory stays bounded.
 */
export class LinkTable {
  static readonly MAX_LINKS = 1 << 18;
  readonly links: string[] = [];
  readonly accounts: (string | null)[] = [];
  private readonly ids = new Map<string, number>();

  constructor(readonly id = ++made) {}

  get size(): number {
    return this.links.length;
  }

  /** The link's index, added at the end when new. */
  of(linkId: string, accountId: string | null): number {
    let l = this.ids.get(linkId);
    if (l === undefined) {
      this.ids.set(linkId, (l = this.links.push(linkId) - 1));
      this.accounts.push(accountId);
    }
    return l;
  }

  /** The link's index, from the reference when it was taken by this table. */
  indexOf(link: LinkRef): number {
    if (link.table !== this.id) {
      link.index = this.of(link.id, link.accountId);
      link.table = this.id;
    }
    return link.index;
  }

  /** The entries from index `from` on. No value contains a newline: ids are UUIDs. */
  slice(from: number): LinkTableSlice {
    return { table: this.id, from, ids: joinLines(this.links.slice(from)), accounts: this.accounts.slice(from).map((a) => a ?? '').join('\n') };
  }

  /** Adds another thread's entries; they continue this table, in the same order. */
  extend(slice: LinkTableSlice): void {
    if (slice.from !== this.size) throw new Error(`link table ${this.id} out of step: has ${this.size} links, sent from ${slice.from}`);
    // Accounts may be empty (trial links), so not splitLines: one entry per id, always.
    const accounts = slice.accounts.split('\n');
    for (const [i, id] of splitLines(slice.ids).entries()) this.of(id, accounts[i] || null);
  }
}
