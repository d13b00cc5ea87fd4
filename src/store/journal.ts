import os from 'node:os';
import type { DayVisits, DeviceClass, Source, VisitClass } from '../domain/analytics/ports.js';
import { visitWord, withRoom, wordClass, wordCountry, wordSource } from '../domain/analytics/day-visits.js';

/**
 * The journal: what a flush makes durable, folded into the rollups later (rollup.ts). A batch holds one
 * UTC day's visits of one bucket of links, in binary: a JSON header naming the links, referrers, visitor
 * classes and countries it uses, then three little-endian 32-bit words per visit (link index, referrer
 * index, class << 16 | country << 1 | source), the layout of the day's buffer (day-visits.ts) with
 * the indexes mapped to the batch's tables: a few lookups by number per visit, no object per visit.
 */
const VERSION = 1;
const WORDS_PER_VISIT = 3;
const LITTLE_ENDIAN = os.endianness() === 'LE';

/**
 * Roll-up buckets. A pass folds one bucket in one transaction, so it touches about 1/64 of the links
 * of a busy interval: on SQLite, where every query waits for a running transaction, none waits long.
 */
export const BUCKETS = 64;

/** Link ids are random UUIDs: their last two hex digits spread links evenly. */
export const bucketOf = (linkId: string): number => (parseInt(linkId.slice(-2), 16) || 0) % BUCKETS;

/** Indexes, in first-use order, of the day's table entries (day-visits.ts) that a batch uses. */
class Index {
  readonly used: number[] = [];
  private readonly map = new Map<number, number>();
  of(dayIndex: number): number {
    let i = this.map.get(dayIndex);
    if (i === undefined) this.map.set(dayIndex, (i = this.used.push(dayIndex) - 1));
    return i;
  }
}

/** One bucket's visits of a day, with its own tables (links, referrers, classes, countries it uses). */
class BatchWriter {
  readonly links: string[] = [];
  private readonly referrers = new Index();
  private readonly classes = new Index();
  private readonly countries = new Index();
  private words = new Uint32Array(WORDS_PER_VISIT * 64);
  private visits = 0;

  constructor(private readonly day: DayVisits) {}

  /** A visit: its link's index in this batch, and visit i of the day for the rest. */
  add(link: number, i: number): void {
    const packed = this.day.packed(i);
    const c = this.classes.of(wordClass(packed));
    const k = this.countries.of(wordCountry(packed));
    this.words = withRoom(this.words, WORDS_PER_VISIT * (this.visits + 1));
    const at = WORDS_PER_VISIT * this.visits++;
    this.words[at] = link;
    this.words[at + 1] = this.referrers.of(this.day.referrer(i));
    this.words[at + 2] = visitWord(c, k, wordSource(packed));
  }

  encode(): Buffer {
    const { day } = this;
    const header = Buffer.from(
      JSON.stringify({
        v: VERSION,
        day: day.day,
        links: this.links,
        referrers: this.referrers.used.map((r) => day.referrers[r]),
        classes: this.classes.used.map((c) => day.classes[c]!).map((c) => [c.device, c.browser, c.bot ? 1 : 0]),
        countries: this.countries.used.map((k) => day.countries[k]),
      }),
    );
    // The words start on a 4-byte boundary after the header's length and the header (padded with spaces).
    const start = 4 + header.length + ((4 - (header.length % 4)) % 4);
    const out = Buffer.alloc(start + this.visits * WORDS_PER_VISIT * 4, 0x20);
    out.writeUInt32LE(header.length, 0);
    header.copy(out, 4);
    const words = this.visits * WORDS_PER_VISIT;
    // The words are little-endian: on such a machine (every one the service runs on) one copy.
    if (LITTLE_ENDIAN) out.set(new Uint8Array(this.words.buffer, 0, 4 * words), start);
    else for (let w = 0, at = start; w < words; w++, at += 4) out.writeUInt32LE(this.words[w]!, at);
    return out;
  }
}

/** The kept visits of one day (keep: null means all), encoded per bucket. */
export function encodeDay(day: DayVisits, keep: Uint8Array | null): Map<number, Buffer> {
  const encoder = new DayEncoder(day, keep);
  encoder.add(0, day.count);
  return new Map(encoder.batches());
}

/**
 * encodeDay a slice of visits at a time (add), for callers on the event loop: a busy second holds tens
 * of thousands of visits.
 */
export class DayEncoder {
  private readonly writers = new Map<number, BatchWriter>();
  /** Per link of the day (its index there): its batch, and its index in that batch. */
  private readonly writerOf: (BatchWriter | undefined)[] = [];
  private readonly slot: Int32Array;

  constructor(
    private readonly day: DayVisits,
    private readonly keep: Uint8Array | null,
  ) {
    this.slot = new Int32Array(day.links.length);
  }

  /** Visits [from, to) of the day. */
  add(from: number, to: number): void {
    const { day, keep, writers, writerOf, slot } = this;
    for (let i = from; i < to; i++) {
      if (keep !== null && keep[i] === 0) continue;
      const l = day.link(i);
      let writer = writerOf[l];
      if (writer === undefined) {
        const bucket = bucketOf(day.links[l]!);
        writer = writers.get(bucket);
        if (writer === undefined) writers.set(bucket, (writer = new BatchWriter(day)));
        writerOf[l] = writer;
        slot[l] = writer.links.push(day.links[l]!) - 1;
      }
      writer.add(slot[l]!, i);
    }
  }

  /** Each bucket's batch, encoded as it is asked for (a caller on the event loop may yield between). */
  *batches(): Generator<[bucket: number, data: Buffer]> {
    for (const [bucket, writer] of this.writers) yield [bucket, writer.encode()];
  }
}

/** A decoded batch: the tables, and the words read in place. */
export interface JournalBatch {
  day: string;
  links: string[];
  referrers: string[];
  classes: VisitClass[];
  countries: string[];
  visits: number;
  /** Word w of visit i. */
  word(i: number, w: 0 | 1 | 2): number;
}

export function decodeBatch(data: Uint8Array): JournalBatch {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const length = view.getUint32(0, true);
  const header = JSON.parse(Buffer.from(data.buffer, data.byteOffset + 4, length).toString('utf8')) as {
    v: number;
    day: string;
    links: string[];
    referrers: string[];
    classes: [DeviceClass, string, 0 | 1][];
    countries: string[];
  };
  if (header.v !== VERSION) throw new Error(`journal batch version ${header.v} is not known to this version`);
  const start = 4 + length + ((4 - (length % 4)) % 4);
  return {
    day: header.day,
    links: header.links,
    referrers: header.referrers,
    classes: header.classes.map(([device, browser, bot]) => ({ device, browser, bot: bot === 1 })),
    countries: header.countries,
    visits: (data.byteLength - start) / (4 * WORDS_PER_VISIT),
    word: (i, w) => view.getUint32(start + 4 * (i * WORDS_PER_VISIT + w), true),
  };
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
