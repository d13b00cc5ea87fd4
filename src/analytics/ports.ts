/**
 * What analytics asks of storage, and the shapes it hands over. The stores implement these for SQLite
 * and PostgreSQL; nothing here knows a driver.
 */
export type Source = 's' | 'q';
export const DEVICE_CLASSES = ['mobile', 'tablet', 'desktop', 'bot', 'other'] as const;
export type DeviceClass = (typeof DEVICE_CLASSES)[number];
export const GAP_REASONS = ['allowance_used_up', 'daily_ceiling_reached', 'bot_ceiling_reached', 'recording_unavailable'] as const;
export type GapReason = (typeof GAP_REASONS)[number];

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
  os: string;
  bot: boolean;
}

/** A visit held until its flush: what is counted of it, and nothing that names the visitor. */
export interface Visit {
  link: LinkRef;
  time: number;
  source: Source;
  agent: VisitClass;
  country: string;
  referrer: string;
  /** The visitor's code under the day's salt (visitors.ts). */
  visitor: number;
}

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
  trackingDailyBotLimit: number;
}

export interface FlushBatch {
  instanceId: string;
  startedAt: number;
  /** Flush time: every visit this instance received before it is in this batch or already flushed. */
  now: number;
  /** In the order they arrived. */
  visits: Visit[];
  /** Visits dropped because the buffer was full while the database was failing. */
  dropped: Shortfall[];
  limits: RecordingLimits;
}

export interface RecordingStore {
  /** One transaction: allowances and ceilings, counts, links' visits, visitors, gaps, heartbeat. Returns the visits recorded. */
  flush(batch: FlushBatch): Promise<Visit[]>;
  /** A heartbeat; `flushedTo` when every visit before it is recorded, else it stays where it was. */
  beat(instanceId: string, startedAt: number, now: number, flushedTo?: number): Promise<void>;
  /** Other instances silent since `staleBefore` died: their unflushed window becomes a gap (visit-gaps.ts). */
  reapSilent(staleBefore: number, now: number, self: string): Promise<number>;
  leave(instanceId: string): Promise<void>;
}

export interface Gap {
  from: number;
  to: number;
  reason: GapReason;
}

/** Counts of one UTC day, dimension and value: [through /s/, through /q/, bots through /s/, bots through /q/]. */
export interface CountRow {
  day: string;
  dimension: string;
  value: string;
  n: [number, number, number, number];
}

/** How a read wants the counts: `time` per UTC hour or quarter hour; the other dimensions per day or summed over the days. */
export interface CountView {
  quarters: boolean;
  perDay: boolean;
}

export interface StatsStore {
  /** The link's counts of the UTC days [fromDay, toDay]: `time` per day, the others per day or summed (day ''). */
  counts(linkId: string, fromDay: string, toDay: string, view: CountView): Promise<CountRow[]>;
  /**
   * The links of the account whose tags hold `tag`; per link its `time` counts and visitor sketches of
   * the UTC days [fromDay, toDay]; the gaps overlapping [from, to] of any of them (`linkId`) or of every
   * link (no `linkId`) after the first of them was created.
   */
  tagCounts(accountId: string, tag: string, window: { fromDay: string; toDay: string; from: number; to: number }): Promise<TagCounts>;
  /** Unique-visitor sketches of the link's UTC days [fromDay, toDay], by day, source and class. */
  visitors(linkId: string, fromDay: string, toDay: string): Promise<VisitorSketch[]>;
  /** Gaps of this link, and service-wide gaps after it was created, overlapping [from, to]. */
  gaps(linkId: string, from: number, to: number, createdAt: number): Promise<Gap[]>;
  /**
   * The time before which every running instance's visits are counted (undefined while no instance
   * runs). Read it before the counts it vouches for: a flush committed between the two reads (on
   * PostgreSQL they run on different connections) must not be vouched for without being counted.
   */
  refreshedAt(): Promise<number | undefined>;
}

/** A link's unique-visitor sketch of one UTC day, source and class. */
export interface VisitorSketch {
  day: string;
  source: Source;
  bot: boolean;
  sketch: Uint8Array;
}

export interface TaggedLink {
  id: string;
  slug: string;
  title: string;
  createdAt: number;
}

export interface TagCounts {
  links: TaggedLink[];
  rows: (CountRow & { linkId: string })[];
  visitors: (VisitorSketch & { linkId: string })[];
  gaps: (Gap & { linkId?: string })[];
}
