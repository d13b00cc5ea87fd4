import os from 'node:os';
import type { LinkTable } from '../link-table.js';
import type { DayVisits, DeviceClass, Source, VisitClass } from '../ports.js';
import { visitWord, withRoom, wordClass, wordCountry, wordSource } from '../day-visits.js';

/**
 * The journal: what a flush makes durable, folded into the rollups later (rollup.ts). A batch holds one
 * UTC day's visits of one bucket of links, in binary: the length of a JSON header, the header (the
 * referrers, visitor classes and countries the batch uses, and how many links), padded to four bytes;
 * the links' journal numbers (link-numbers.ts), one little-endian 32-bit word each; then three such
 * words per visit (link index, referrer index, class << 16 | country << 1 | source), the layout of the
 * day's buffer (day-visits.ts) with the indexes mapped to the batch's tables: a few lookups by number
 * per visit, no object per visit.
 *
 * Version 1 (until migration 0010) named the links by id in the header; such batches are still read.
 */
const VERSION = 2;
const NAMED_LINKS = 1;
const WORDS_PER_VISIT = 3;
const LITTLE_ENDIAN = os.endianness() === 'LE';

/**
 * Roll-up buckets. A pass folds one bucket in one transaction, so it touches about 1/64 of the links
 * of a busy interval: on SQLite, where every query waits for a running transaction, none waits long.
 */
export const BUCKETS = 64;

/** Link ids are random UUIDs: their last two hex digits spread links evenly. */
export const bucketOf = (linkId: string): number => (parseInt(linkId.slice(-2), 16) || 0) % BUCKETS;

/**
 * Which of a batch's entries a day table's entries are (referrers, classes, countries): per entry of
 * the day's table, the batch that last used it and its index there. The batches are written one after
 * another, so one Index serves them all, and a visit costs two array reads, no hashing.
 */
class Index {
  used: number[] = [];
  private readonly batch: Int32Array;
  private readonly local: Int32Array;
  private current = -1;

  constructor(size: number) {
    this.batch = new Int32Array(size).fill(-1);
    this.local = new Int32Array(size);
  }

  /** Starts the next batch's table. */
  next(batch: number): void {
    this.current = batch;
    this.used = [];
  }

  of(dayIndex: number): number {
    if (this.batch[dayIndex] === this.current) return this.local[dayIndex]!;
    this.batch[dayIndex] = this.current;
    return (this.local[dayIndex] = this.used.push(dayIndex) - 1);
  }
}

/** What the journal keeps per link of a link table: its bucket. */
interface TableNotes {
  buckets: Uint8Array<ArrayBuffer>;
  /** Entries noted so far (tables only grow). */
  size: number;
}

/** Per link table (link-table.ts): its links' buckets, worked out once per link rather than once per flush. */
const notes = new WeakMap<LinkTable, TableNotes>();

function notesOf(table: LinkTable): TableNotes {
  let n = notes.get(table);
  if (n === undefined) notes.set(table, (n = { buckets: new Uint8Array(Math.max(1024, table.size)), size: 0 }));
  if (n.size < table.size) {
    n.buckets = withRoom(n.buckets, table.size);
    for (let l = n.size; l < table.size; l++) n.buckets[l] = bucketOf(table.links[l]!);
    n.size = table.size;
  }
  return n;
}

/**
 * encodeDay a slice of visits at a time, for callers on the event loop or a paced thread: a busy
 * second holds tens of thousands of visits. `add` counts the visits per bucket; `place`, once all are
 * counted, copies their words into bucket order (a stable counting sort, one sequential pass);
 * `batches` writes one bucket's batch at a time, its visits in their order of arrival, with the
 * indexes mapped through typed arrays in place (a Map per batch and table cost three hash lookups a
 * visit). The links' buckets are noted once per link table; their numbers (`nums`, by the table's
 * index: linkNumbers in link-numbers.ts) are written as they are.
 */
export class DayEncoder {
  private readonly notes: TableNotes;
  private readonly counts = new Int32Array(BUCKETS);
  /** Set by the first `place`: where each bucket's words start, where its next visit goes, and the words. */
  private placed: { starts: Int32Array; next: Int32Array; words: Uint32Array } | undefined;

  constructor(
    private readonly day: DayVisits,
    private readonly keep: Uint8Array | null,
    private readonly nums: Uint32Array,
  ) {
    this.notes = notesOf(day.table);
  }

  /** Visits [from, to) of the day, counted. */
  add(from: number, to: number): void {
    const { day, keep, counts } = this;
    const buckets = this.notes.buckets;
    for (let i = from; i < to; i++) {
      if (keep === null || keep[i] !== 0) counts[buckets[day.link(i)]!]!++;
    }
  }

  /** Visits [from, to) of the day, copied into bucket order; every visit must have been added first. */
  place(from: number, to: number): void {
    const { day, keep } = this;
    const buckets = this.notes.buckets;
    const { next, words } = (this.placed ??= this.layout());
    for (let i = from; i < to; i++) {
      if (keep !== null && keep[i] === 0) continue;
      const l = day.link(i);
      const at = WORDS_PER_VISIT * next[buckets[l]!]!++;
      words[at] = l;
      words[at + 1] = day.referrer(i);
      words[at + 2] = day.packed(i);
    }
  }

  private layout(): { starts: Int32Array; next: Int32Array; words: Uint32Array } {
    const starts = new Int32Array(BUCKETS + 1);
    for (let b = 0; b < BUCKETS; b++) starts[b + 1] = starts[b]! + this.counts[b]!;
    return { starts, next: starts.slice(0, BUCKETS), words: new Uint32Array(WORDS_PER_VISIT * starts[BUCKETS]!) };
  }

  /**
   * Each non-empty bucket's batch in bucket order, encoded as it is asked for (a caller may pace
   * between); every visit must have been placed first.
   */
  *batches(): Generator<[bucket: number, data: Buffer]> {
    const { day, counts, nums } = this;
    const { starts, words } = (this.placed ??= this.layout());
    // Per link of the day's table: its index in its batch + 1, or 0 before its batch first met it.
    const linkSlot = new Int32Array(day.links.length);
    const referrers = new Index(day.referrers.length);
    const classes = new Index(day.classes.length);
    const countries = new Index(day.countries.length);
    for (let b = 0; b < BUCKETS; b++) {
      if (counts[b] === 0) continue;
      referrers.next(b);
      classes.next(b);
      countries.next(b);
      const links: number[] = [];
      const from = WORDS_PER_VISIT * starts[b]!;
      const to = WORDS_PER_VISIT * starts[b + 1]!;
      for (let at = from; at < to; at += WORDS_PER_VISIT) {
        const l = words[at]!;
        let slot = linkSlot[l]!;
        if (slot === 0) linkSlot[l] = slot = links.push(nums[l]!);
        const packed = words[at + 2]!;
        words[at] = slot - 1;
        words[at + 1] = referrers.of(words[at + 1]!);
        words[at + 2] = visitWord(classes.of(wordClass(packed)), countries.of(wordCountry(packed)), wordSource(packed));
      }
      yield [b, encodeBatch(day, links, referrers.used, classes.used, countries.used, words.subarray(from, to))];
    }
  }
}

/** A batch in the journal's binary form (see the top of this file). */
function encodeBatch(day: DayVisits, links: number[], referrers: number[], classes: number[], countries: number[], words: Uint32Array): Buffer {
  const header = Buffer.from(
    JSON.stringify({
      v: VERSION,
      day: day.day,
      links: links.length,
      referrers: referrers.map((r) => day.referrers[r]),
      classes: classes.map((c) => day.classes[c]!).map((c) => [c.device, c.browser, c.bot ? 1 : 0]),
      countries: countries.map((k) => day.countries[k]),
    }),
  );
  const start = wordsStart(header.length);
  const out = Buffer.alloc(start + (links.length + words.length) * 4, 0x20);
  out.writeUInt32LE(header.length, 0);
  header.copy(out, 4);
  for (let l = 0, at = start; l < links.length; l++, at += 4) out.writeUInt32LE(links[l]!, at);
  const visitsAt = start + links.length * 4;
  // The words are little-endian: on such a machine (every one the service runs on) one copy.
  if (LITTLE_ENDIAN) out.set(new Uint8Array(words.buffer, words.byteOffset, words.byteLength), visitsAt);
  else for (let w = 0, at = visitsAt; w < words.length; w++, at += 4) out.writeUInt32LE(words[w]!, at);
  return out;
}

/** The words start on a 4-byte boundary after the header's length and the header (padded with spaces). */
const wordsStart = (headerLength: number): number => 4 + headerLength + ((4 - (headerLength % 4)) % 4);

/** The kept visits of one day (keep: null means all), encoded per bucket; `nums` as for DayEncoder. */
export function encodeDay(day: DayVisits, keep: Uint8Array | null, nums: Uint32Array): Map<number, Buffer> {
  const encoder = new DayEncoder(day, keep, nums);
  encoder.add(0, day.count);
  encoder.place(0, day.count);
  return new Map(encoder.batches());
}

/** A decoded batch: the tables, and the visits' words. */
export interface JournalBatch {
  day: string;
  /** The links by journal number (link-numbers.ts); by id in a version 1 batch (`ids`). */
  links: { nums: number[] } | { ids: string[] };
  referrers: string[];
  classes: VisitClass[];
  countries: string[];
  visits: number;
  /** Word w of visit i at 3 * i + w. */
  words: Uint32Array;
}

export function decodeBatch(data: Uint8Array): JournalBatch {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const length = view.getUint32(0, true);
  const header = JSON.parse(Buffer.from(data.buffer, data.byteOffset + 4, length).toString('utf8')) as {
    v: number;
    day: string;
    links: number | string[];
    referrers: string[];
    classes: [DeviceClass, string, 0 | 1][];
    countries: string[];
  };
  let start = wordsStart(length);
  let links: JournalBatch['links'];
  if (header.v === VERSION && typeof header.links === 'number') {
    const nums: number[] = [];
    for (let l = 0; l < header.links; l++, start += 4) nums.push(view.getUint32(start, true));
    links = { nums };
  } else if (header.v === NAMED_LINKS && Array.isArray(header.links)) {
    links = { ids: header.links };
  } else {
    throw new Error(`journal batch version ${header.v} is not known to this version`);
  }
  const visits = (data.byteLength - start) / (4 * WORDS_PER_VISIT);
  return {
    day: header.day,
    links,
    referrers: header.referrers,
    classes: header.classes.map(([device, browser, bot]) => ({ device, browser, bot: bot === 1 })),
    countries: header.countries,
    visits,
    words: wordsAt(data, start, visits * WORDS_PER_VISIT),
  };
}

/**
 * `count` little-endian words of `data` from byte `start`: read in place where they are aligned on
 * such a machine, else copied (a roll-up reads three per visit: a typed array, not a DataView call each).
 */
function wordsAt(data: Uint8Array, start: number, count: number): Uint32Array {
  const at = data.byteOffset + start;
  if (LITTLE_ENDIAN && at % 4 === 0) return new Uint32Array(data.buffer, at, count);
  if (LITTLE_ENDIAN) {
    // A copy of its own (a Buffer's slice is a view of the same memory, at the same offset).
    const copy = new Uint8Array(4 * count);
    copy.set(data.subarray(start, start + 4 * count));
    return new Uint32Array(copy.buffer);
  }
  const view = new DataView(data.buffer, at, 4 * count);
  return Uint32Array.from({ length: count }, (_, w) => view.getUint32(4 * w, true));
}

/** Counts of the text journal written before migration 0005, still folded if a deployment left some. */
export interface LegacyCount {
  linkId: string;
  day: string;
  source: Source;
  country: string;
  device: DeviceClass;
  browser: string;
  bot: boolean;
  referrer: string;
  count: number;
}

type LegacyRow = [link: number, day: number, source: number, country: number, device: number, browser: number, bot: 0 | 1, referrer: number, count: number];

export function decodeLegacy(text: string): LegacyCount[] {
  const { s, r } = JSON.parse(text) as { s: string[]; r: LegacyRow[] };
  return r.map(([link, day, source, country, device, browser, bot, referrer, count]) => ({
    linkId: s[link]!,
    day: s[day]!,
    source: s[source] as Source,
    country: s[country]!,
    device: s[device] as DeviceClass,
    browser: s[browser]!,
    bot: bot === 1,
    referrer: s[referrer]!,
    count,
  }));
}
