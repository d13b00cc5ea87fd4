import type { DayVisits, DeviceClass, Source, VisitClass } from '../domain/analytics/ports.js';

/**
 * The journal: what a flush makes durable, folded into the rollups later (rollup.ts). A batch holds one
 * UTC day's visits of one bucket of links, in binary: a JSON header naming the links, referrers, visitor
 * classes and countries it uses, then three little-endian 32-bit words per visit (link index, referrer
 * index, class << 16 | country << 1 | source). Writing it costs a few map lookups per visit and no
 * object per visit (the JSON counts it replaced needed an object per distinct count).
 */
const VERSION = 1;
const WORDS_PER_VISIT = 3;
/** Countries fit in 15 bits, classes in 16 (in practice: 678 and ~460 values). */
const MAX_COUNTRIES = 1 << 15;
const MAX_CLASSES = 1 << 16;

/**
 * Roll-up buckets. A pass folds one bucket in one transaction, so it touches about 1/64 of the links
 * of a busy interval: on SQLite, where every query waits for a running transaction, none waits long.
 */
export const BUCKETS = 64;

/** Link ids are random UUIDs: their last two hex digits spread links evenly. */
export const bucketOf = (linkId: string): number => (parseInt(linkId.slice(-2), 16) || 0) % BUCKETS;

/** Indexes of the distinct values a batch uses, in first-use order. */
class Index<K> {
  readonly values: K[] = [];
  private readonly map = new Map<K, number>();
  of(value: K): number {
    let i = this.map.get(value);
    if (i === undefined) {
      i = this.values.length;
      this.values.push(value);
      this.map.set(value, i);
    }
    return i;
  }
}

class BatchWriter {
  readonly links: string[] = [];
  readonly referrers = new Index<string>();
  readonly classes = new Index<VisitClass>();
  readonly countries = new Index<string>();
  readonly words: number[] = [];

  constructor(readonly day: string) {}

  add(link: number, referrer: string, visitor: VisitClass, country: string, source: Source): void {
    const c = this.classes.of(visitor);
    const k = this.countries.of(country);
    if (c >= MAX_CLASSES || k >= MAX_COUNTRIES) throw new Error('journal batch: too many distinct classes or countries');
    this.words.push(link, this.referrers.of(referrer), ((c << 16) | (k << 1) | (source === 'q' ? 1 : 0)) >>> 0);
  }

  encode(): Buffer {
    const header = Buffer.from(
      JSON.stringify({
        v: VERSION,
        day: this.day,
        links: this.links,
        referrers: this.referrers.values,
        classes: this.classes.values.map((c) => [c.device, c.browser, c.bot ? 1 : 0]),
        countries: this.countries.values,
      }),
    );
    // The words start on a 4-byte boundary after the header's length and the header (padded with spaces).
    const start = 4 + header.length + ((4 - (header.length % 4)) % 4);
    const out = Buffer.alloc(start + this.words.length * 4, 0x20);
    out.writeUInt32LE(header.length, 0);
    header.copy(out, 4);
    for (let i = 0, at = start; i < this.words.length; i++, at += 4) out.writeUInt32LE(this.words[i]!, at);
    return out;
  }
}

/** The kept visits of one day (keep: null means all), encoded per bucket. */
export function encodeDay(day: DayVisits, keep: Uint8Array | null): Map<number, Buffer> {
  const encoder = new DayEncoder(day, keep);
  encoder.add(0, day.links.length);
  return encoder.finish();
}

/**
 * encodeDay a slice of visits at a time (add), for callers on the event loop: a busy second holds tens
 * of thousands of visits, about 0.4 µs each to encode.
 */
export class DayEncoder {
  private readonly writers = new Map<number, BatchWriter>();
  // One lookup per visit finds the link's batch and its index there.
  private readonly slots = new Map<string, { writer: BatchWriter; index: number }>();

  constructor(
    private readonly day: DayVisits,
    private readonly keep: Uint8Array | null,
  ) {}

  /** Visits [from, to) of the day. */
  add(from: number, to: number): void {
    const { day, keep, writers, slots } = this;
    for (let i = from; i < to; i++) {
      if (keep !== null && keep[i] === 0) continue;
      const linkId = day.links[i]!;
      let slot = slots.get(linkId);
      if (slot === undefined) {
        const bucket = bucketOf(linkId);
        let writer = writers.get(bucket);
        if (writer === undefined) writers.set(bucket, (writer = new BatchWriter(day.day)));
        slot = { writer, index: writer.links.push(linkId) - 1 };
        slots.set(linkId, slot);
      }
      slot.writer.add(slot.index, day.referrers[i]!, day.classes[i]!, day.countries[i]!, day.sources[i]!);
    }
  }

  finish(): Map<number, Buffer> {
    const out = new Map<number, Buffer>();
    for (const [bucket, writer] of this.writers) out.set(bucket, writer.encode());
    return out;
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
