import { joinLines, LinkTable, splitLines, type LinkRef, type LinkTableSlice } from './link-table.js';
import type { UaClass } from './classify.js';
import type { Source, VisitClass } from './ports.js';

/** Classes and countries share a 32-bit word with the source (as in the journal, store/journal.ts). */
export const MAX_CLASSES = 1 << 16;
export const MAX_COUNTRIES = 1 << 15;
const WORDS = 3;

/**
 * A visit's third word, here and in the journal (store/journal.ts): its class index << 16, country
 * index << 1, source (1: q). One definition for every writer and reader of the layout.
 */
export const visitWord = (visitorClass: number, country: number, q: number): number => ((visitorClass << 16) | (country << 1) | q) >>> 0;
export const wordClass = (word: number): number => word >>> 16;
export const wordCountry = (word: number): number => (word >>> 1) & (MAX_COUNTRIES - 1);
/** 1 for `q`, 0 for `s`. */
export const wordSource = (word: number): number => word & 1;

/** A typed array that withRoom grows. */
type Growable = Uint8Array<ArrayBuffer> | Uint32Array<ArrayBuffer>;

/** `array`, or a copy of the same kind at least twice as long when it holds fewer than `length`. */
export function withRoom<T extends Growable>(array: T, length: number): T {
  if (length <= array.length) return array;
  const grown = new (array.constructor as new (length: number) => T)(Math.max(length, array.length * 2));
  grown.set(array);
  return grown;
}

/**
 * A DayVisits as a message to another thread: the words are copied (structured clone), the links are
 * those of its link table that the thread was not sent before, and each other table of strings is
 * one string joined by newlines, copied in one piece where an array of strings is cloned string by
 * string. No value contains a newline: referrers are normalised hosts, countries two letters.
 *
 * Copied, not transferred: transferring an ArrayBuffer detaches it, and the first detach in a
 * process makes V8 give up its "no ArrayBuffer was ever detached" assumption for good. Every typed
 * array and Buffer access in optimized code then checks for detachment, and the code already
 * optimized on the assumption is thrown away at once: Node's HTTP, stream, tick and async-id code
 * (which keeps its counters in typed arrays) and the redirect path's own. Under the redirect
 * benchmark's load that wave came with the first flush (docs/benchmarks.md, "Tenth session"). A
 * second's words are a few hundred kilobytes: copying them costs far less.
 */
export interface DayVisitsMessage {
  day: string;
  from: number;
  count: number;
  words: Uint32Array<ArrayBuffer>;
  links: LinkTableSlice;
  referrers: string;
  classes: VisitClass[];
  countries: string;
}

/**
 * The buffered visits of one UTC day, in arrival order: per visit three 32-bit words in a typed array
 * (link index, referrer index, class << 16 | country << 1 | source), the indexes into tables of the
 * distinct values. A visit allocates nothing the garbage collector has to trace or copy, and the
 * flush's journal (store/journal.ts) is the same layout with the indexes mapped per batch. Before,
 * six arrays of references (one entry per visit and field) were copied by young-generation
 * collections, promoted, and re-indexed by string at every flush: 9% fewer redirects a second under
 * the redirect benchmark's load (docs/benchmarks.md).
 */
export class DayVisits {
  readonly referrers: string[] = [];
  readonly classes: VisitClass[] = [];
  readonly countries: string[] = [];
  /** Visits buffered. */
  count = 0;
  private words: Uint32Array<ArrayBuffer>;
  private readonly referrerIds = new Map<string, number>();
  private readonly countryIds = new Map<string, number>();
  /** Class objects seen, and their content: the classifier hands out one object per class, mostly. */
  private readonly classIds = new Map<VisitClass, number>();
  private readonly classKeys = new Map<string, number>();
  /**
   * Per id of the classifier's classes, the class's index here + 1, or 0 when not seen yet: the
   * redirect path's lookup is an array read, where the map hashed. Ids are interned (device, browser,
   * bot) triples of classify.ts, at most 5 × 45 × 2; a class past the array is found by the map.
   */
  private readonly classByUaId = new Int32Array(512);

  constructor(
    readonly day: string,
    /** Time of the first visit: refusals are reported from here. */
    public from: number,
    capacity = 1024,
    /** Links are indexes into this table, which the recorder's buffers share (link-table.ts). */
    readonly table = new LinkTable(),
  ) {
    this.words = new Uint32Array(WORDS * Math.max(1, capacity));
  }

  /** Appends a visit; false (nothing appended) when the day has more distinct classes or countries than fit. */
  add(linkId: string, accountId: string | null, source: Source, country: string, visitor: VisitClass, referrer: string): boolean {
    const packed = this.pack(source, country, this.classIds.get(visitor) ?? this.classOf(visitor));
    if (packed === -1) return false;
    this.push(this.table.of(linkId, accountId), this.referrerOf(referrer), packed);
    return true;
  }

  /**
   * add() for the redirect path: the link's index comes from its reference (link-table.ts), the
   * class's from the classifier's id.
   */
  addLink(link: LinkRef, source: Source, country: string, visitor: UaClass, referrer: string): boolean {
    const packed = this.pack(source, country, this.uaClass(visitor));
    if (packed === -1) return false;
    this.push(this.table.indexOf(link), this.referrerOf(referrer), packed);
    return true;
  }

  /** The visit's third word, or -1 when its class (-1) or country does not fit (nothing is added then). */
  private pack(source: Source, country: string, c: number): number {
    const k = this.countryIds.get(country) ?? this.countryOf(country);
    if (c === -1 || k === -1) return -1;
    return visitWord(c, k, source === 'q' ? 1 : 0);
  }

  /** The index of a classifier's class, or -1 when the table is full. */
  private uaClass(visitor: UaClass): number {
    const id = visitor.id;
    const known = id < this.classByUaId.length ? this.classByUaId[id]! : 0;
    if (known !== 0) return known - 1;
    const c = this.classIds.get(visitor) ?? this.classOf(visitor);
    if (c !== -1 && id < this.classByUaId.length) this.classByUaId[id] = c + 1;
    return c;
  }

  /** Distinct links, by index (of all the table's buffers), and each one's account (null: a trial link). */
  get links(): string[] {
    return this.table.links;
  }

  get accounts(): (string | null)[] {
    return this.table.accounts;
  }

  /**
   * This buffer as a message (see DayVisitsMessage), for a thread that holds the first `linksSent`
   * entries of its link table already. Post it without a transfer list: its words are a copy of the
   * visits' words alone (the buffer's spare room stays here), and this buffer's memory stays attached.
   */
  toMessage(linksSent: number): DayVisitsMessage {
    return {
      day: this.day,
      from: this.from,
      count: this.count,
      words: this.words.slice(0, WORDS * this.count),
      links: this.table.slice(linksSent),
      referrers: joinLines(this.referrers),
      classes: this.classes,
      countries: joinLines(this.countries),
    };
  }

  /** The buffer of a message; `tables` are this thread's mirrors of the sender's link tables, by id. */
  static fromMessage(m: DayVisitsMessage, tables: Map<number, LinkTable>): DayVisits {
    let table = tables.get(m.links.table);
    // From its first link: a new table, or all of one sent again after this thread fell out of step.
    if (!table || (m.links.from === 0 && table.size > 0)) tables.set(m.links.table, (table = new LinkTable(m.links.table)));
    table.extend(m.links);
    const day = new DayVisits(m.day, m.from, 1, table);
    day.words = m.words;
    day.count = m.count;
    for (const r of splitLines(m.referrers)) day.referrerOf(r);
    for (const k of splitLines(m.countries)) day.countryOf(k);
    for (const c of m.classes) day.classOf(c);
    return day;
  }

  /** Index of visit i's link in `links` (and `accounts`). */
  link(i: number): number {
    return this.words[WORDS * i]!;
  }

  /** Index of visit i's referrer in `referrers`. */
  referrer(i: number): number {
    return this.words[WORDS * i + 1]!;
  }

  /** Visit i's class index << 16 | country index << 1 | source (1: q). */
  packed(i: number): number {
    return this.words[WORDS * i + 2]!;
  }

  /**
   * Appends every visit of another buffer of the same day, in their order (a failed flush's visits
   * are kept in the buffer that the next visits join). The other buffer's tables are mapped once, so
   * a visit costs a few array reads. Returns the links of visits that did not fit (more distinct
   * classes or countries than the packed word holds: never in practice), one entry per visit.
   */
  append(other: DayVisits): string[] {
    // Buffers of one recorder share their link table: their indexes are the same.
    const links = other.table === this.table ? undefined : other.links.map((link, l) => this.table.of(link, other.accounts[l]!));
    const referrers = other.referrers.map((r) => this.referrerOf(r));
    const classes = other.classes.map((c) => this.classIds.get(c) ?? this.classOf(c));
    const countries = other.countries.map((k) => this.countryIds.get(k) ?? this.countryOf(k));
    const refused: string[] = [];
    for (let i = 0; i < other.count; i++) {
      const packed = other.packed(i);
      const c = classes[wordClass(packed)]!;
      const k = countries[wordCountry(packed)]!;
      if (c === -1 || k === -1) refused.push(other.links[other.link(i)]!);
      else this.push(links === undefined ? other.link(i) : links[other.link(i)]!, referrers[other.referrer(i)]!, visitWord(c, k, wordSource(packed)));
    }
    this.from = Math.min(this.from, other.from);
    return refused;
  }

  private push(link: number, referrer: number, packed: number): void {
    this.words = withRoom(this.words, WORDS * (this.count + 1));
    const at = WORDS * this.count++;
    this.words[at] = link;
    this.words[at + 1] = referrer;
    this.words[at + 2] = packed;
  }

  private referrerOf(referrer: string): number {
    let r = this.referrerIds.get(referrer);
    if (r === undefined) this.referrerIds.set(referrer, (r = this.referrers.push(referrer) - 1));
    return r;
  }

  /** The country's index, or -1 when the table is full (nothing is added then). */
  private countryOf(country: string): number {
    if (this.countries.length >= MAX_COUNTRIES) return -1;
    const k = this.countries.push(country) - 1;
    this.countryIds.set(country, k);
    return k;
  }

  /** The class's index by content, or -1 when the table is full (nothing is added then). */
  private classOf(visitor: VisitClass): number {
    const key = `${visitor.device}\u0000${visitor.browser}\u0000${visitor.bot ? 1 : 0}`;
    let c = this.classKeys.get(key);
    if (c === undefined) {
      if (this.classes.length >= MAX_CLASSES) return -1;
      this.classKeys.set(key, (c = this.classes.push(visitor) - 1));
    }
    this.classIds.set(visitor, c);
    return c;
  }
}
