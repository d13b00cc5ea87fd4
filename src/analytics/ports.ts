/** What analytics asks of storage, and the shapes it hands over; nothing here knows a driver. */
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
  /** Visits dropped before the flush: the buffer was full, or the bot ceiling was. */
  dropped: Shortfall[];
  limits: RecordingLimits;
}

/** A flush whose COMMIT went unanswered may have taken or not: its visits wait for `RecordingStore.settle`, neither written again nor lost. */
export class FlushUnanswered extends Error {
  constructor(
    /** The visits the flush recorded if it took. */
    readonly recorded: Visit[],
    cause: unknown,
  ) {
    super('a flush went unanswered at its commit', { cause });
  }
}

export interface RecordingStore {
  /** One transaction (ADR 0042); returns the visits recorded, or rejects with FlushUnanswered when its outcome is unknown. */
  flush(batch: FlushBatch): Promise<Visit[]>;
  /** After a FlushUnanswered, before anything else is written: whether that flush took. Rejects while the database cannot tell. */
  settle(instanceId: string, now: number): Promise<boolean>;
  /** A heartbeat; `flushedTo` when every visit before it is recorded, else it stays where it was. */
  beat(instanceId: string, startedAt: number, now: number, flushedTo?: number): Promise<void>;
  /** Other instances silent since `staleBefore` died: their unflushed window becomes a gap (visit-gaps.ts). */
  reapSilent(staleBefore: number, now: number, self: string): Promise<number>;
  leave(instanceId: string): Promise<void>;
  /** Compacts some link-days; returns how many, 0 when none is left or (without `wait`) another instance is compacting. */
  compact(wait?: boolean): Promise<number>;
}

export interface Gap {
  from: number;
  to: number;
  reason: GapReason;
  /** The link whose visits were not recorded; absent when no link's were (a service-wide gap). */
  linkId?: string;
}

/** A link's UTC day as reads see it: its writers' rows added up (counts.ts, DayTotals), or a compacted day's summary (DaySummary). */
export interface LinkDay {
  day: string;
  /** The link, day, writers and versions of the rows it was added up from: equal stamps, equal counts. */
  stamp: string;
  /** Per UTC quarter hour of the day (0 to 95), its four columns: `quarters[4 * quarter + column]`. */
  readonly quarters: Float64Array;
  /** Per dimension (counts.ts, DIMENSIONS; `time` left empty): `[value, s, q, s_bot, q_bot, value, …]`. */
  readonly counts: readonly (readonly (string | number)[])[];
  /** Unique visitors of a set of columns (a bit each: 1 /s/, 2 /q/, 4 and 8 bots through each), estimated. */
  visitors(mask: number): number;
}

/** A link's day with its unique-visitor sketches, for merging with other links' (campaigns). */
export interface LinkDayVisitors extends LinkDay {
  /** Merges the day's unique-visitor sketches of a set of columns into `into` (visitors.ts). */
  mergeVisitors(into: Uint8Array, mask: number): void;
}

/** A block of closed days (store/compaction.ts): their breakdowns added up, as a day's `counts`. */
export interface Block {
  stamp: string;
  counts: readonly (readonly (string | number)[])[];
}

/** A link's window as a read adds it up: its days, and blocks of closed days that hold the breakdowns the days leave empty. */
export interface LinkWindow {
  days: LinkDay[];
  blocks: Block[];
}

export interface StatsStore {
  /** Per link, its UTC days [fromDay, toDay] that hold any count (the writers' rows added up). */
  linkDays(linkIds: readonly string[], fromDay: string, toDay: string): Promise<Map<string, LinkDayVisitors[]>>;
  /**
   * One link's UTC days [fromDay, toDay] that hold any count, compacted ones as summaries with their breakdowns in blocks; with
   * `perDay`, every day with its own breakdowns and no blocks (the CSV's rows are per day).
   */
  linkWindow(linkId: string, fromDay: string, toDay: string, perDay?: boolean): Promise<LinkWindow>;
  /** The links of the account whose tags hold `tag`. */
  taggedLinks(accountId: string, tag: string): Promise<TaggedLink[]>;
  /** Gaps of these links (`linkId`), and service-wide gaps (no `linkId`) after `createdAt`, overlapping [from, to]. */
  gaps(linkIds: readonly string[], from: number, to: number, createdAt: number): Promise<Gap[]>;
  /**
   * The time before which every running instance's visits are counted (undefined while none runs). Read it before the counts: on
   * PostgreSQL the reads use different connections, and a flush committed between them must not be vouched for without being counted.
   */
  refreshedAt(): Promise<number | undefined>;
}

export interface TaggedLink {
  id: string;
  slug: string;
  title: string;
  createdAt: number;
}
