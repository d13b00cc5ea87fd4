import crypto from 'node:crypto';
import { DAY_MS, HOUR_MS, QUARTER_MS, utcDay } from '../platform/time.js';
import type { GapReason, LinkDay, LinkDayVisitors, Shortfall, Source, Visit } from './ports.js';
import { addStored, emptySketch, encode, estimate, merge, mergeStored, packSketches, unpackSketches, type Sketch } from './visitors.js';

/**
 * The dimensions a visit is counted by, per link and UTC day, in one of four columns (see `column`); `time` is the UTC quarter hour, so days and
 * hours can follow any time zone. A new breakdown is a name here and a value per visit in Tally.settle (ADR 0042).
 */
export const DIMENSIONS = ['time', 'country', 'device', 'browser', 'os', 'referrer'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Trial links belong to no account; only the daily ceiling bounds them. */
export const TRIAL_GROUP = '~trial';

/** The column a visit counts in: 0 /s/, 1 /q/, 2 bots through /s/, 3 bots through /q/. */
export const column = (source: Source, bot: boolean): number => (source === 'q' ? 1 : 0) + (bot ? 2 : 0);

/** The UTC day of a visit; the last one is cached, as a flush's visits fall on one or two days. */
let lastDay = { number: NaN, day: '' };
export function dayOf(time: number): string {
  const number = Math.floor(time / DAY_MS);
  if (number !== lastDay.number) lastDay = { number, day: utcDay(time) };
  return lastDay.day;
}

/** `HH:MM` of the UTC quarter hour holding `time`, cached as in dayOf. */
let lastQuarter = { number: NaN, quarter: '' };
export function quarterOf(time: number): string {
  const number = Math.floor(time / QUARTER_MS);
  if (number !== lastQuarter.number) lastQuarter = { number, quarter: new Date(number * QUARTER_MS).toISOString().slice(11, 16) };
  return lastQuarter.quarter;
}
/** The quarter hour `HH:MM` as its place in the day, 0 to 95. */
const quarterIndex = (quarter: string) => 4 * Number(quarter.slice(0, 2)) + Number(quarter.slice(3, 5)) / 15;

/** The writer of a day's compacted row: finished writers' rows, and all rows once the day is closed (store/compaction.ts). */
export const COMPACTED = '*';
/** Blocks of closed days span 2^1 to 2^LEVELS days, so the longest window (90 days) needs only a few. */
export const LEVELS = 6;
/** Days since 1970 of a UTC day `YYYY-MM-DD`, and back. */
export const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / DAY_MS;
export const dayOfNumber = (n: number) => utcDay(n * DAY_MS);

/** Counts of one dimension: value → [s, q, s_bot, q_bot]. */
export type Values = Map<string, number[]>;
/** Counts of one dimension in their stored form: `[value, s, q, s_bot, q_bot, value, …]`. */
export type FlatCounts = readonly (string | number)[];

/** Adds up one dimension's counts of several rows or blocks; a single list is returned as it is, not copied. */
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

/** A link's counts and per-column visitor sketches (stored form) of one UTC day, as one writer (Tallies) holds them. */
export class Tally {
  private readonly counts: Values[] = DIMENSIONS.map(() => new Map<string, number[]>());
  private readonly sketches: Uint8Array[] = [EMPTY, EMPTY, EMPTY, EMPTY];
  /** Counted together when encoded: counting each of a flush's visits on arrival would reach into another tally's maps at every visit. */
  private queued: Visit[] = [];
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

  takeAdded(): number {
    const added = this.added;
    this.added = 0;
    return added;
  }

  encode(): { counts: string; visitors: Uint8Array } {
    this.settle();
    return { counts: this.encodeCounts(), visitors: packSketches(this.sketches) };
  }

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

  /** Stored form: JSON of each dimension's FlatCounts. */
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

function columnsOf(values: Values, value: string): number[] {
  let n = values.get(value);
  if (n === undefined) values.set(value, (n = [0, 0, 0, 0]));
  return n;
}

function count(values: Values, value: string, at: number): void {
  columnsOf(values, value)[at]!++;
}

/**
 * An instance's tallies, written whole as its own rows of `visit_tallies` (under `writer`): no one else writes them, so they are never
 * read back. It forgets them and writes as a new writer when a flush fails, when it holds too many, and every UTC hour, so a row holds at
 * most an hour and a flush late in a busy day costs what an early one does (`npm run bench:flush`, "late"). A writer left behind never
 * writes again (ADR 0042).
 */
export class Tallies {
  writer = crypto.randomUUID();
  private byLink = new Map<string, Map<string, Tally>>();
  private readonly changed = new Set<Tally>();
  private held = 0;
  /** The UTC hour (hours since 1970) of the last trim. */
  private hour = NaN;

  constructor(private readonly maxHeld = 200_000) {}

  /** Before a flush adds its visits, or at a heartbeat; never between a flush's `add` calls: it would forget visits the flush must write. */
  trim(now: number): void {
    const hour = Math.floor(now / HOUR_MS);
    if (this.held > this.maxHeld || hour !== this.hour) this.forget();
    this.hour = hour;
  }

  /** Adds a flush's visits, in one or several calls; `touched` then hands over the tallies they changed. */
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

  /** The tallies changed since the last call, by link and day: the order rows are written in. */
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
 * A link's UTC day as reads see it: its writers' rows added up, with sketches kept per column so that the unique visitors of a set of
 * columns (a mask: 1 /s/, 2 /q/, 4 and 8 bots through each) are estimated once, when first asked.
 */
export class DayTotals implements LinkDayVisitors {
  /** Per UTC quarter hour of the day (0 to 95), its four columns: `quarters[4 * quarter + column]`. */
  readonly quarters = new Float64Array(96 * 4);
  /** Stored-form counts per dimension; `time` stays empty, as `quarters` holds it. */
  readonly counts: FlatCounts[] = DIMENSIONS.map(() => []);
  /** Per column, each writer's sketch (stored form). */
  private readonly sketches: Uint8Array[][] = [[], [], [], []];
  private readonly estimates = new Map<number, number>();
  /** Rough memory size: the rows' stored form, with counts weighted as they take several times their length once parsed. */
  readonly bytes: number;

  /** @param stamp the rows' writers and versions: days of equal stamps hold equal counts. */
  constructor(
    readonly day: string,
    rows: readonly { counts: string; visitors: Uint8Array }[],
    readonly stamp = '',
    readonly linkId = '',
  ) {
    this.bytes = rows.reduce((n, row) => n + 4 * row.counts.length + row.visitors.length, 0);
    // All rows are parsed first, so that each dimension is added up in one pass.
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
    // Each column's sketch, then the unique visitors of each set of columns in MASKS.
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

  mergeVisitors(into: Sketch, mask: number): void {
    this.sketches.forEach((sketches, at) => mask & (1 << at) && sketches.forEach((sketch) => mergeStored(into, sketch)));
  }

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

/** The sets of columns a request can ask for (StatsWindow.mask): /s/, /q/ or both, with or without their bots. */
const MASKS = [1, 2, 3, 1 | 4, 2 | 8, 15];

/*
 * A compacted day's summary (visit_sums, level 0), big-endian: the unique visitors of each set in MASKS (32 bits each), then per quarter
 * hour and column with visits its place (4 × quarter + column, 16 bits) and count (32 bits). It lets a read of a day its compacted row
 * alone holds skip the counts' JSON and the sketches.
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

/** A compacted day read from its summary; breakdowns come from its compacted row when given, else stay empty: a block covers the day. */
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

/** What a day granted; `reasons` says why an account got fewer visits than it asked. */
export interface DayGrant {
  accounts: Map<string, number>;
  reasons: Map<string, GapReason>;
  bots: number;
}

/** What a visit asks of: its UTC day and account (a trial link's TRIAL_GROUP; bots, none: ''). */
export const demandKey = (day: string, account: string) => `${day}\t${account}`;
const accountOf = (visit: Visit) => (visit.agent.bot ? '' : (visit.link.accountId ?? TRIAL_GROUP));
const demandOf = (visit: Visit) => demandKey(dayOf(visit.time), accountOf(visit));

/** Whether `holds` is true of every demand of `days`: each day's bots (account '') and each account's people. */
function everyDemand(days: Map<string, DayDemand>, holds: (day: string, account: string, n: number) => boolean): boolean {
  for (const [day, want] of days) {
    if (!holds(day, '', want.bots)) return false;
    for (const [account, n] of want.accounts) if (!holds(day, account, n)) return false;
  }
  return true;
}

/** Whether the grants give every day all it asked (only the demandKeys in `only`, when given): then no visits need choosing. */
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

/** Which visits are recorded: each account's first in arrival order, as many as granted, and the day's first bot visits; the rest are refused. */
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
