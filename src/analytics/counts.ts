import crypto from 'node:crypto';
import { DAY_MS, HOUR_MS, QUARTER_MS, utcDay } from '../platform/time.js';
import type { GapReason, LinkDay, LinkDayVisitors, Shortfall, Source, Visit } from './ports.js';
import { addStored, emptySketch, encode, estimate, merge, mergeStored, packSketches, unpackSketches, type Sketch } from './visitors.js';

/**
 * The counting model, read top to bottom: every recorded visit adds one to a count per link, UTC day,
 * dimension and value, in one of four columns (through /s/ or /q/, by a person or a bot), and its
 * visitor code to that link and day's sketch of the column. `time` is the visit's UTC quarter hour, so
 * that days and hours follow any time zone. A new breakdown is a name here and a value per visit
 * (Tally.settle). A link's day is stored as a row per writer and hour (Tallies), added up when read (DayTotals).
 * The rows of writers that will not write again, and once a day is closed all its rows, become its one
 * row (writer COMPACTED) with a summary (DaySummary), and blocks of closed days hold their breakdowns
 * added up (store/compaction.ts).
 */
export const DIMENSIONS = ['time', 'country', 'device', 'browser', 'os', 'referrer'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Trial links' group: they belong to no account, and only the daily ceiling bounds them. */
export const TRIAL_GROUP = '~trial';

/** The column a visit counts in: 0 /s/, 1 /q/, 2 bots through /s/, 3 bots through /q/. */
export const column = (source: Source, bot: boolean): number => (source === 'q' ? 1 : 0) + (bot ? 2 : 0);

/** The UTC day of a visit, remembered for the last day asked: a flush's visits fall on one or two. */
let lastDay = { number: NaN, day: '' };
export function dayOf(time: number): string {
  const number = Math.floor(time / DAY_MS);
  if (number !== lastDay.number) lastDay = { number, day: utcDay(time) };
  return lastDay.day;
}

/** `HH:MM` of the UTC quarter hour holding `time`, remembered for the last quarter hour asked, as days are. */
let lastQuarter = { number: NaN, quarter: '' };
export function quarterOf(time: number): string {
  const number = Math.floor(time / QUARTER_MS);
  if (number !== lastQuarter.number) lastQuarter = { number, quarter: new Date(number * QUARTER_MS).toISOString().slice(11, 16) };
  return lastQuarter.quarter;
}
/** The quarter hour `HH:MM` as its place in the day, 0 to 95. */
const quarterIndex = (quarter: string) => 4 * Number(quarter.slice(0, 2)) + Number(quarter.slice(3, 5)) / 15;

/** The writer of a day's one row: its finished writers' rows added up, all of them once the day is closed (store/compaction.ts). */
export const COMPACTED = '*';
/** Blocks of closed days: 2^1 to 2^LEVELS days, enough for the longest window (90 days) to need a few. */
export const LEVELS = 6;
/** Days since 1970 of a UTC day `YYYY-MM-DD`, and back. */
export const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / DAY_MS;
export const dayOfNumber = (n: number) => utcDay(n * DAY_MS);

/** Counts of one dimension: value → [s, q, s_bot, q_bot]. */
export type Values = Map<string, number[]>;
/** Counts of one dimension in their stored form: `[value, s, q, s_bot, q_bot, value, …]`. */
export type FlatCounts = readonly (string | number)[];

/** One dimension's counts of several rows or blocks added up, in one pass; a single list is taken as it is. */
export function addUp(lists: readonly FlatCounts[]): FlatCounts {
  const given = lists.filter((list) => list.length > 0);
  if (given.length <= 1) return given[0] ?? [];
  const values: Values = new Map();
  for (const list of given)
    for (let i = 0; i < list.length; i += 5) {
      const n = columnsOf(values, list[i] as string);
      for (let c = 0; c < 4; c++) n[c]! += list[i + 1 + c] as number;
    }
  const out: (string | number)[] = [];
  for (const [value, n] of values) out.push(value, n[0]!, n[1]!, n[2]!, n[3]!);
  return out;
}

/**
 * A link's counts of one UTC day as one writer (Tallies, below) holds them: per dimension and value, the
 * four columns; and per column, the sketch of its unique visitors (visitors.ts, stored form).
 */
export class Tally {
  /** Per dimension, in the order of DIMENSIONS. */
  private readonly counts: Values[] = DIMENSIONS.map(() => new Map<string, number[]>());
  private readonly sketches: Uint8Array[] = [EMPTY, EMPTY, EMPTY, EMPTY];
  /**
   * Visits added since they were last counted. They are counted together when the tally is encoded: a
   * flush adds visits of thousands of tallies in the order they came, and counting each as it is added
   * would reach into a different tally's maps at every visit.
   */
  private queued: Visit[] = [];
  /** Visits added since the last `takeAdded`. */
  private added = 0;

  constructor(
    readonly linkId: string,
    readonly day: string,
  ) {}

  /** One visit of the tally's link and day. */
  add(visit: Visit): void {
    this.queued.push(visit);
    this.added++;
  }

  /** How many visits were added since the last call. */
  takeAdded(): number {
    const added = this.added;
    this.added = 0;
    return added;
  }

  /** The stored form: the counts (encodeCounts) and the sketches, brought up to date and packed. */
  encode(): { counts: string; visitors: Uint8Array } {
    this.settle();
    return { counts: this.encodeCounts(), visitors: packSketches(this.sketches) };
  }

  /** Counts the visits queued since the last call, and adds their visitor codes to the sketches. */
  private settle(): void {
    const { queued, counts } = this;
    if (queued.length === 0) return;
    const codes: number[][] = [[], [], [], []];
    for (const visit of queued) {
      const { agent } = visit;
      const at = column(visit.source, agent.bot);
      count(counts[0]!, quarterOf(visit.time), at);
      count(counts[1]!, visit.country, at);
      count(counts[2]!, agent.device, at);
      count(counts[3]!, agent.browser, at);
      count(counts[4]!, agent.os, at);
      count(counts[5]!, visit.referrer, at);
      codes[at]!.push(visit.visitor);
    }
    this.queued = [];
    codes.forEach((list, at) => {
      if (list.length > 0) this.sketches[at] = addStored(this.sketches[at]!, list) ?? this.sketches[at]!;
    });
  }

  /** The stored form of the counts: per dimension a flat list `[value, s, q, s_bot, q_bot, value, …]`. */
  encodeCounts(): string {
    this.settle();
    const out: Record<string, (string | number)[]> = {};
    DIMENSIONS.forEach((dimension, i) => {
      const flat: (string | number)[] = (out[dimension] = []);
      for (const [value, n] of this.counts[i]!) flat.push(value, n[0]!, n[1]!, n[2]!, n[3]!);
    });
    return JSON.stringify(out);
  }
}

const EMPTY = new Uint8Array(0);

/** A value's four columns in `values`, zeros the first time. */
function columnsOf(values: Values, value: string): number[] {
  let n = values.get(value);
  if (n === undefined) values.set(value, (n = [0, 0, 0, 0]));
  return n;
}

function count(values: Values, value: string, at: number): void {
  columnsOf(values, value)[at]!++;
}

/**
 * The tallies one instance writes: every link and UTC day it counted visits of, as its own rows of
 * `visit_tallies` hold them (under `writer`). A flush adds its visits to them and writes the tallies it
 * touched whole; no row is ever read back or written by anyone else, and reads add up the writers'
 * rows. When the instance cannot be sure its rows hold what it holds (a flush failed), or holds too
 * many, it forgets them all and writes as a new writer from then on. It does so every UTC hour too:
 * a flush rewrites each row it touches whole, so a row holds at most an hour, and a flush late in a
 * busy day costs what one early in it does, not several times that (`npm run bench:flush`, "late").
 * A writer it has left never writes again: the compaction adds its rows into their days' one row.
 */
export class Tallies {
  writer = crypto.randomUUID();
  private byLink = new Map<string, Map<string, Tally>>();
  private readonly changed = new Set<Tally>();
  private held = 0;
  /** The UTC hour (hours since 1970) of the last trim. */
  private hour = NaN;

  constructor(private readonly maxHeld = 200_000) {}

  /**
   * Before a flush at `now` adds its visits, and at a heartbeat: in another UTC hour than the last
   * trim, or holding too many tallies, it forgets them all. Never between a flush's calls of `add`, which would forget
   * visits the flush has counted and must write.
   */
  trim(now: number): void {
    const hour = Math.floor(now / HOUR_MS);
    if (this.held > this.maxHeld || hour !== this.hour) this.forget();
    this.hour = hour;
  }

  /** Adds visits (a flush's, in one or several calls); `touched` then hands over the tallies they changed. */
  add(visits: Visit[]): void {
    const touched = this.changed;
    for (const visit of visits) {
      const day = dayOf(visit.time);
      let days = this.byLink.get(visit.link.id);
      if (days === undefined) this.byLink.set(visit.link.id, (days = new Map<string, Tally>()));
      let tally = days.get(day);
      if (tally === undefined) {
        days.set(day, (tally = new Tally(visit.link.id, day)));
        this.held++;
      }
      tally.add(visit);
      touched.add(tally);
    }
  }

  /** The tallies changed since the last call, by link and day (the order rows are written in). */
  touched(): Tally[] {
    const touched = [...this.changed].sort((a, b) => compare(a.linkId, b.linkId) || compare(a.day, b.day));
    this.changed.clear();
    return touched;
  }

  forget(): void {
    this.writer = crypto.randomUUID();
    this.byLink = new Map();
    this.changed.clear();
    this.held = 0;
  }
}

/** Strings in code-unit order (the same in every locale and both databases' binary collation). */
export const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A link's UTC day as reads see it: the rows of its writers added up (per dimension and value, the
 * four columns), and their sketches kept per column, so that the unique visitors of any set of columns
 * (a bit per column: 1 /s/, 2 /q/, 4 and 8 bots through each) are worked out once, when first asked.
 */
export class DayTotals implements LinkDayVisitors {
  /** Per UTC quarter hour of the day (0 to 95), its four columns: `quarters[4 * quarter + column]`. */
  readonly quarters = new Float64Array(96 * 4);
  /** Per dimension, in the order of DIMENSIONS (`time`, kept in `quarters`, left empty): its counts in their stored form. */
  readonly counts: FlatCounts[] = DIMENSIONS.map(() => []);
  /** Per column, each writer's sketch (stored form). */
  private readonly sketches: Uint8Array[][] = [[], [], [], []];
  private readonly estimates = new Map<number, number>();
  /** About the memory it takes: its rows' stored form, the counts several times over once parsed. */
  readonly bytes: number;

  /**
   * @param stamp what the rows were (their writers and versions): days of equal stamps hold equal counts.
   */
  constructor(
    readonly day: string,
    rows: readonly { counts: string; visitors: Uint8Array }[],
    readonly stamp = '',
    readonly linkId = '',
  ) {
    this.bytes = rows.reduce((n, row) => n + 4 * row.counts.length + row.visitors.length, 0);
    // Several rows (the day's compacted row, each instance's row of the hour, rows not compacted yet): each dimension is added up once, after all are parsed.
    const parsed = rows.map((row) => JSON.parse(row.counts) as Record<string, FlatCounts>);
    for (const { time = [] } of parsed) {
      for (let i = 0; i < time.length; i += 5) {
        const quarter = quarterIndex(time[i] as string);
        for (let c = 0; c < 4; c++) this.quarters[4 * quarter + c]! += time[i + 1 + c] as number;
      }
    }
    for (let d = 1; d < DIMENSIONS.length; d++) this.counts[d] = addUp(parsed.map((row) => row[DIMENSIONS[d]!] ?? []));
    for (const row of rows) unpackSketches(row.visitors).forEach((sketch, at) => sketch.length > 0 && this.sketches[at]!.push(sketch));
  }

  /** The day's rows as one (store/compaction.ts): counts and sketches added up, and the day's summary. */
  compacted(): { counts: string; visitors: Uint8Array; summary: Uint8Array } {
    const time: (string | number)[] = [];
    for (let quarter = 0; quarter < 96; quarter++) {
      const n = Array.from(this.quarters.subarray(4 * quarter, 4 * quarter + 4));
      if (n.some((count) => count > 0)) time.push(quarterOf(quarter * QUARTER_MS), ...n);
    }
    const counts = Object.fromEntries(DIMENSIONS.map((dimension, d) => [dimension, d === 0 ? time : this.counts[d]]));
    // Each column's sketch (the stored form), then the union of each set of columns a request can ask for.
    const columns = [0, 1, 2, 3].map((at) => {
      const sketch = emptySketch();
      this.mergeVisitors(sketch, 1 << at);
      return sketch;
    });
    const estimates = MASKS.map((mask) => {
      const union = emptySketch();
      columns.forEach((sketch, at) => mask & (1 << at) && merge(union, sketch));
      return estimate(union);
    });
    return { counts: JSON.stringify(counts), visitors: packSketches(columns.map(encode)), summary: encodeSummary(this.quarters, estimates) };
  }

  /** Merges the day's sketches of the columns `mask` into `into`: the sketch of their union. */
  mergeVisitors(into: Sketch, mask: number): void {
    this.sketches.forEach((sketches, at) => mask & (1 << at) && sketches.forEach((sketch) => mergeStored(into, sketch)));
  }

  /** Unique visitors of the columns `mask`, estimated. */
  visitors(mask: number): number {
    let n = this.estimates.get(mask);
    if (n === undefined) {
      const sketch = emptySketch();
      this.mergeVisitors(sketch, mask);
      this.estimates.set(mask, (n = estimate(sketch)));
    }
    return n;
  }
}

/**
 * The sets of columns a request can ask for (StatsWindow.mask, a bit per column): /s/, /q/ or both,
 * with or without their bots.
 */
const MASKS = [1, 2, 3, 1 | 4, 2 | 8, 15];

/*
 * A compacted day's summary (visit_sums, level 0): the unique visitors of each set of columns in MASKS, 32
 * bits each, then per quarter hour and column with visits its place (4 × quarter + column, 16 bits) and
 * count (32 bits), big-endian. A read of a day its compacted row alone holds thus needs neither its counts' JSON nor its sketches.
 */
function encodeSummary(quarters: Float64Array, estimates: number[]): Uint8Array {
  const places: number[] = [];
  quarters.forEach((count, place) => count > 0 && places.push(place));
  const out = new DataView(new ArrayBuffer(4 * estimates.length + 6 * places.length));
  estimates.forEach((n, i) => out.setUint32(4 * i, n));
  places.forEach((place, i) => {
    out.setUint16(4 * estimates.length + 6 * i, place);
    out.setUint32(4 * estimates.length + 6 * i + 2, quarters[place]!);
  });
  return new Uint8Array(out.buffer);
}

/**
 * A compacted day as its summary holds it: quarter hours and unique visitors. Its breakdowns (`counts`) are
 * those of its compacted row when given, else left empty: a block that covers the day holds them.
 */
export class DaySummary implements LinkDay {
  readonly quarters = new Float64Array(96 * 4);
  readonly counts: FlatCounts[];
  private readonly estimates = new Map<number, number>();
  readonly bytes: number;

  constructor(
    readonly day: string,
    summary: Uint8Array,
    readonly stamp: string,
    counts?: string,
  ) {
    const view = new DataView(summary.buffer, summary.byteOffset, summary.byteLength);
    MASKS.forEach((mask, i) => this.estimates.set(mask, view.getUint32(4 * i)));
    for (let at = 4 * MASKS.length; at + 6 <= summary.length; at += 6) this.quarters[view.getUint16(at)] = view.getUint32(at + 2);
    this.counts = counts === undefined ? DIMENSIONS.map(() => []) : parseBreakdowns(counts);
    this.bytes = summary.length + 4 * (counts?.length ?? 0);
  }

  visitors(mask: number): number {
    return this.estimates.get(mask)!;
  }
}

/** Counts in their stored form (a row's or a block's JSON) per dimension, `time` left empty. */
export function parseBreakdowns(json: string): FlatCounts[] {
  const parsed = JSON.parse(json) as Record<string, FlatCounts>;
  return DIMENSIONS.map((dimension, d) => (d === 0 ? [] : (parsed[dimension] ?? [])));
}

/** What a batch asks of each UTC day: people's visits per account (ascending: the lock order), and bots. */
export interface DayDemand {
  accounts: Map<string, number>;
  bots: number;
}

/** Adds the demand of visits to `days` (a flush adds its visits' in slices); `inLockOrder` then sorts it. */
export function addDemand(days: Map<string, DayDemand>, visits: Visit[]): void {
  for (const visit of visits) {
    const day = dayOf(visit.time);
    let want = days.get(day);
    if (want === undefined) days.set(day, (want = { accounts: new Map(), bots: 0 }));
    if (visit.agent.bot) want.bots++;
    else {
      const account = visit.link.accountId ?? TRIAL_GROUP;
      want.accounts.set(account, (want.accounts.get(account) ?? 0) + 1);
    }
  }
}

/** Days ascending, and each day's accounts ascending: the order a flush locks them in. */
export function inLockOrder(days: Map<string, DayDemand>): Map<string, DayDemand> {
  const sorted = (map: Map<string, number>) => new Map([...map].sort(([a], [b]) => (a < b ? -1 : 1)));
  return new Map([...days].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, want]) => [day, { ...want, accounts: sorted(want.accounts) }]));
}

/** What a day granted: visits per account, bot visits, and why an account got fewer than it asked. */
export interface DayGrant {
  accounts: Map<string, number>;
  reasons: Map<string, GapReason>;
  bots: number;
}

/** What a visit asks of: its UTC day and account (a trial link's TRIAL_GROUP; bots, none: ''). */
export const demandKey = (day: string, account: string) => `${day}\t${account}`;
/** The account a visit asks of in its demand: none ('') for a bot. */
const accountOf = (visit: Visit) => (visit.agent.bot ? '' : (visit.link.accountId ?? TRIAL_GROUP));
const demandOf = (visit: Visit) => demandKey(dayOf(visit.time), accountOf(visit));

/** Whether `holds` holds for every demand of `days`: each day's bots (account '') and each account's people, with how many it asks. */
function everyDemand(days: Map<string, DayDemand>, holds: (day: string, account: string, n: number) => boolean): boolean {
  for (const [day, want] of days) {
    if (!holds(day, '', want.bots)) return false;
    for (const [account, n] of want.accounts) if (!holds(day, account, n)) return false;
  }
  return true;
}

/**
 * Whether the grants give every day all it asked (of the demands `only`, when given: keys of
 * demandKey): then those visits are recorded, and none need choosing.
 */
export function grantsAll(days: Map<string, DayDemand>, grants: Map<string, DayGrant>, only?: Set<string>): boolean {
  return everyDemand(days, (day, account, n) => {
    if (only !== undefined && !only.has(demandKey(day, account))) return true;
    const grant = grants.get(day)!;
    return (account === '' ? grant.bots : (grant.accounts.get(account) ?? 0)) >= n;
  });
}

/** The visits whose demand (demandKey; of `days`, the batch's) is among `keys`, and the others. */
export function splitByDemand(visits: Visit[], days: Map<string, DayDemand>, keys: Set<string>): [Visit[], Visit[]] {
  if (keys.size === 0) return [[], visits];
  // Usually every demand: then no visit needs looking at.
  if (everyDemand(days, (day, account, n) => n === 0 || keys.has(demandKey(day, account)))) return [visits, []];
  const among: Visit[] = [];
  const others: Visit[] = [];
  for (const visit of visits) (keys.has(demandOf(visit)) ? among : others).push(visit);
  return [among, others];
}

/**
 * Which visits are recorded: each account's first visits in the order they arrived, as many as it
 * was granted, and the day's first bot visits; the rest are refused, per link and reason.
 */
export function choose(visits: Visit[], grants: Map<string, DayGrant>, now: number): { recorded: Visit[]; refused: Shortfall[] } {
  const left = new Map<string, number>();
  const recorded: Visit[] = [];
  const refused = new Map<string, Shortfall>();
  for (const visit of visits) {
    const day = dayOf(visit.time);
    const grant = grants.get(day)!;
    const account = accountOf(visit);
    const key = demandKey(day, account);
    const granted = left.get(key) ?? (visit.agent.bot ? grant.bots : (grant.accounts.get(account) ?? 0));
    left.set(key, granted - 1);
    if (granted > 0) {
      recorded.push(visit);
      continue;
    }
    const reason = visit.agent.bot ? 'bot_ceiling_reached' : grant.reasons.get(account)!;
    addShortfall(refused, { linkId: visit.link.id, reason, count: 1, from: visit.time, to: now });
  }
  return { recorded, refused: [...refused.values()] };
}

/** Adds visits not recorded to `into`, one entry per link and reason: counts add up, the span widens. */
export function addShortfall(into: Map<string, Shortfall>, s: Shortfall): void {
  const key = `${s.linkId ?? ''}|${s.reason}`;
  const known = into.get(key);
  if (known === undefined) return void into.set(key, { ...s });
  known.count += s.count;
  known.from = Math.min(known.from, s.from);
  known.to = Math.max(known.to, s.to);
}
