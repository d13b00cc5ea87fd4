import type { Kysely } from 'kysely';
import type { DB } from '../../platform/database/schema.js';

// Tables of visit recording (migrations 0001 and 0020), kept apart from the shared schema file.

/** Visits per link, UTC day, dimension and value, split four ways (counts.ts). */
export interface VisitCountTable {
  link_id: string;
  day: string;
  dimension: string;
  value: string;
  s: number;
  q: number;
  s_bot: number;
  q_bot: number;
}

/** A HyperLogLog sketch of the visitors of a link, day, source and class (visitors.ts). */
export interface VisitVisitorTable {
  link_id: string;
  day: string;
  source: string;
  bot: number;
  sketch: Uint8Array;
}

/** Visits recorded per UTC day, service-wide: people's against TRACKING_DAILY_LIMIT, bots' against their own. */
export interface VisitDayTable {
  day: string;
  recorded: number;
  bots: number;
  last_grant: number;
}

export interface VisitMonthTable {
  account_id: string;
  month: string;
  /** Visits recorded for the account this UTC month, free and from packs. */
  recorded: number;
  free_used: number;
  last_grant: number;
}

export interface VisitGapTable {
  id: string;
  link_id: string | null;
  reason: string;
  from_ms: number;
  to_ms: number;
}

export interface RecorderInstanceTable {
  id: string;
  started_at: number;
  beat_at: number;
  flushed_to: number;
}

// A type alias, not an interface: withTables needs an index-compatible record type.
export type AnalyticsTables = {
  visit_counts: VisitCountTable;
  visit_visitors: VisitVisitorTable;
  visit_days: VisitDayTable;
  visit_months: VisitMonthTable;
  visit_gaps: VisitGapTable;
  recorder_instances: RecorderInstanceTable;
};

export type AnalyticsDB = DB & AnalyticsTables;

export const analyticsDb = (db: Kysely<DB>): Kysely<AnalyticsDB> => db.withTables<AnalyticsTables>();
