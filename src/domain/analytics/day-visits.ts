import type { Source, VisitClass } from './ports.js';

/** Classes and countries share a 32-bit word with the source (as in the journal, store/journal.ts). */
export const MAX_CLASSES = 1 << 16;
export const MAX_COUNTRIES = 1 << 15;
const WORDS = 3;

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
  /** Distinct links, by index, and each one's account (null: a trial link). */
  readonly links: string[] = [];
  readonly accounts: (string | null)[] = [];
  readonly referrers: string[] = [];
  readonly classes: VisitClass[] = [];
  readonly countries: string[] = [];
  /** Visits buffered. */
  count = 0;
  private words: Uint32Array;
  private readonly linkIds = new Map<string, number>();
  private readonly referrerIds = new Map<string, number>();
  private readonly countryIds = new Map<string, number>();
  /** Class objects seen, and their content: the classifier hands out one object per class, mostly. */
  private readonly classIds = new Map<VisitClass, number>();
  private readonly classKeys = new Map<string, number>();

  constructor(
    readonly day: string,
    /** Time of the first visit: refusals are reported from here. */
    readonly from: number,
    capacity = 1024,
  ) {
    this.words = new Uint32Array(WORDS * capacity);
  }

  /** Appends a visit; false (nothing appended) when the day has more distinct classes or countries than fit. */
  add(linkId: string, accountId: string | null, source: Source, country: string, visitor: VisitClass, referrer: string): boolean {
    const c = this.classIds.get(visitor) ?? this.classOf(visitor);
    let k = this.countryIds.get(country);
    if (k === undefined) this.countryIds.set(country, (k = this.countries.push(country) - 1));
    if (c >= MAX_CLASSES || k >= MAX_COUNTRIES) return false;
    let l = this.linkIds.get(linkId);
    if (l === undefined) {
      this.linkIds.set(linkId, (l = this.links.push(linkId) - 1));
      this.accounts.push(accountId);
    }
    let r = this.referrerIds.get(referrer);
    if (r === undefined) this.referrerIds.set(referrer, (r = this.referrers.push(referrer) - 1));
    if (WORDS * (this.count + 1) > this.words.length) {
      const grown = new Uint32Array(this.words.length * 2);
      grown.set(this.words);
      this.words = grown;
    }
    const at = WORDS * this.count++;
    this.words[at] = l;
    this.words[at + 1] = r;
    this.words[at + 2] = ((c << 16) | (k << 1) | (source === 'q' ? 1 : 0)) >>> 0;
    return true;
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

  /** Appends every visit of another buffer of the same day, in their order (a failed flush's visits). */
  append(other: DayVisits): void {
    for (let i = 0; i < other.count; i++) {
      const l = other.link(i);
      const packed = other.packed(i);
      this.add(
        other.links[l]!,
        other.accounts[l]!,
        packed & 1 ? 'q' : 's',
        other.countries[(packed >>> 1) & 0x7fff]!,
        other.classes[packed >>> 16]!,
        other.referrers[other.referrer(i)]!,
      );
    }
  }

  private classOf(visitor: VisitClass): number {
    const key = `${visitor.device}\u0000${visitor.browser}\u0000${visitor.bot ? 1 : 0}`;
    let c = this.classKeys.get(key);
    if (c === undefined) this.classKeys.set(key, (c = this.classes.push(visitor) - 1));
    this.classIds.set(visitor, c);
    return c;
  }
}
