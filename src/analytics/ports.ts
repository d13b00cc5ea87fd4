/**
 * What analytics asks of storage, and the shapes it hands over. The stores implement these for SQLite
 * and PostgreSQL; nothing here knows a driver.
 */
import type { DayVisits } from './visits.js';

export type Source = 's' | 'q';
export const DEVICE_CLASSES = ['mobile', 'tablet', 'desktop', 'bot', 'other'] as const;
export type DeviceClass = (typeof DEVICE_CLASSES)[number];
export const GAP_REASONS = ['allowance_used_up', 'daily_ceiling_reached', 'recording_unavailable'] as const;
export type GapReason = (typeof GAP_REASONS)[number];
/** Rollup dimensions; `source` doubles as the daily total (every visit has exactly one source). */
export const DIMENSIONS = ['source', 'country', 'device', 'browser', 'referrer', 'bot'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** A link as the redirect path hands it to the recorder. */
export interface LinkRef {
  readonly id: string;
  /** null for a trial link. */
  readonly accountId: string | null;
}

/** What a user agent says about a visitor. */
export interface VisitClass {
  device: DeviceClass;
  browser: string;
  bot: boolean;
}

/** Visits per dimension and value, in memory: one Map per dimension. */
export type CountMaps = Record<Dimension, Map<string, number>>;
export type Counts = Partial<CountMaps>;

/**
 * A rollup row's counts as its JSON keeps them: per dimension, values and their visits in turn
 * (`{"country":["DE",3,"FR",1]}`). Arrays parse about twice as fast as objects keyed by value (ADR 0056).
 */
export type StoredCounts = Partial<Record<Dimension, (string | number)[]>>;

/** Visits of one link that were not recorded, and the span of time they fell in. */
export interface Shortfall {
  linkId: string | null;
  reason: GapReason;
  count: number;
  from: number;
  to: number;
}

export interface RecordingLimits {
  freeVisitsPerMonth: number;
  trackingDailyLimit: number;
}

/** One link's visits of one UTC day that a flush recorded. */
export interface Recorded {
  linkId: string;
  /** The link's account (trial links: TRIAL_GROUP). */
  account: string;
  day: string;
  visits: number;
  /** What the visits add to the link's rollup row of the day (through /s/, through /q/, every dimension), summed when asked. */
  rollup(): { s: number; q: number; counts: CountMaps };
}

export interface FlushBatch {
  instanceId: string;
  startedAt: number;
  /** Flush time: every visit this instance received before it is in this batch or already flushed. */
  now: number;
  /** One entry per UTC day, ascending. */
  days: DayVisits[];
  /** Visits dropped because the buffer was full while the database was failing. */
  dropped: Shortfall[];
  limits: RecordingLimits;
}

export interface RecordingStore {
  /**
   * One transaction: allowance and ceiling checks, the rollups and links' visits, gaps, heartbeat.
   * Returns the visits recorded per link.
   */
  flush(batch: FlushBatch): Promise<Map<string, number>>;
  /** A heartbeat; `flushedTo` when every visit before it is recorded, else it stays where it was. */
  beat(instanceId: string, startedAt: number, now: number, flushedTo?: number): Promise<void>;
  /** Other instances silent since `staleBefore` died: their unflushed window becomes a gap until recording resumed (visit-gaps.ts). */
  reapSilent(staleBefore: number, now: number, self: string): Promise<number>;
  leave(instanceId: string): Promise<void>;
}

export interface Gap {
  from: number;
  to: number;
  reason: GapReason;
}

export interface RollupRow {
  day: string;
  dimension: Dimension;
  value: string;
  count: number;
}

/** A link's visits of one UTC day, from its rollup rows (one per writer). */
export interface DayCounts {
  day: string;
  s: number;
  q: number;
  /** The counts of each of the day's rows, as stored; sum them with addCounts. */
  counts: StoredCounts[];
}

export interface StatsStore {
  /** The link's rollup rows of [fromDay, toDay], by day; `counts` only when asked for (else empty). */
  days(linkId: string, fromDay: string, toDay: string, withCounts: boolean): Promise<DayCounts[]>;
  /** Gaps of this link, and service-wide gaps after it was created, overlapping [from, to]. */
  gaps(linkId: string, from: number, to: number, createdAt: number): Promise<Gap[]>;
  /**
   * The time before which every running instance's visits are counted (undefined while no instance
   * runs), and a number that changes whenever a flush adds to a day before its own today.
   */
  freshness(): Promise<{ refreshedAt: number | undefined; pastVersion: number }>;
}
