/**
 * What analytics asks of storage, and the shapes it hands over. The store implements these for SQLite
 * and PostgreSQL; nothing here knows a driver.
 */
export type Source = 's' | 'q';
export const DEVICE_CLASSES = ['mobile', 'tablet', 'desktop', 'bot', 'other'] as const;
export type DeviceClass = (typeof DEVICE_CLASSES)[number];
export const GAP_REASONS = ['allowance_used_up', 'daily_ceiling_reached', 'recording_unavailable'] as const;
export type GapReason = (typeof GAP_REASONS)[number];
/** Rollup dimensions; `source` doubles as the daily total (every visit has exactly one source). */
export const DIMENSIONS = ['source', 'country', 'device', 'browser', 'referrer', 'bot'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** What a user agent says about a visitor (one shared object per distinct class, never per visit). */
export interface VisitClass {
  device: DeviceClass;
  browser: string;
  bot: boolean;
}

/** The visits of one UTC day in arrival order (day-visits.ts). Never an address. */
import type { DayVisits } from './day-visits.js';
export type { DayVisits };

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

export interface FlushBatch {
  instanceId: string;
  startedAt: number;
  /** Flush time: every visit this instance received before it is in this batch or already durable. */
  now: number;
  /** One entry per UTC day, ascending. */
  days: DayVisits[];
  /** Visits dropped because the buffer was full while the database was failing. */
  dropped: Shortfall[];
  limits: RecordingLimits;
}

export interface FlushResult {
  recorded: number;
  refused: number;
}

export interface VisitStore {
  /** One transaction: allowance and ceiling checks, the granted visits, gaps for the rest, heartbeat. */
  flush(batch: FlushBatch): Promise<FlushResult>;
  /** Folds flushed batches into the rollups; returns how many visits it folded. */
  rollUp(now: number): Promise<number>;
  beat(instanceId: string, startedAt: number, now: number): Promise<void>;
  /** Other instances silent since `staleBefore` died: their unflushed window becomes a gap until recording resumed (visit-gaps.ts). */
  reapSilent(staleBefore: number, now: number, self: string): Promise<number>;
  leave(instanceId: string): Promise<void>;
}

/** What the recorder hands over at each tick: the visits buffered since the last one, and those it dropped. */
export interface Handover {
  /** The recorder's clock: the backend keeps no time of its own. */
  now: number;
  /** One entry per UTC day. */
  days: DayVisits[];
  dropped: Shortfall[];
}

/**
 * Where buffered visits go to be made durable (recording-loop.ts), on another thread
 * (store/recording-thread.ts) or on this one.
 */
export interface RecordingBackend {
  /** Visits handed over that it no longer holds (durable, refused or dropped): the recorder's buffer bound counts the rest. */
  readonly released: number;
  start(now: number): Promise<void>;
  /** Takes the handover and runs the flush, heartbeat and roll-up schedule. */
  tick(handover: Handover): Promise<void>;
  /** Makes everything handed over durable and rolled up; rejects when the flush failed. */
  flush(handover: Handover): Promise<void>;
  /** The final flush; the instance leaves cleanly when nothing is left behind. */
  stop(handover: Handover): Promise<void>;
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

export interface StatsStore {
  /**
   * In one read (one round trip): the per-day counts of the source dimension (s, q) in [fromDay,
   * toDay], and the window totals per value of each dimension asked for.
   */
  window(linkId: string, totals: Dimension[], fromDay: string, toDay: string): Promise<{ daily: RollupRow[]; totals: RollupRow[] }>;
  /** Every rollup row of the window (CSV). */
  rows(linkId: string, fromDay: string, toDay: string): Promise<RollupRow[]>;
  /** Gaps of this link, and service-wide gaps after it was created, overlapping [from, to]. */
  gaps(linkId: string, from: number, to: number, createdAt: number): Promise<Gap[]>;
  /**
   * The time before which every visit is in the rollups (undefined before the first roll-up), and a
   * number that changes whenever a roll-up changed any count (so computed stats can be reused until then).
   */
  freshness(): Promise<{ refreshedAt: number | undefined; generation: number }>;
}
