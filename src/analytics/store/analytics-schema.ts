import type { Kysely } from 'kysely';
import type { DB } from '../../platform/database/schema.js';

// Tables of visit recording (migration 0001's analytics part), kept apart from the shared schema file.

/** One row per link, UTC day and writer (a recorder's run: rollups.ts, RollupWriter). */
export interface VisitRollupTable {
  link_id: string;
  day: string;
  writer: string;
  /** Visits through /s/ and /q/ that day: the daily series, read without parsing `counts`. */
  s: number;
  q: number;
  /** One JSON object of every dimension's counts, `source` included, that the writer rewrites on each flush. */
  counts: string;
}

export interface VisitDayTable {
  day: string;
  recorded: number;
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

export interface AnalyticsStateTable {
  name: string;
  value: number;
}

// A type alias, not an interface: withTables needs an index-compatible record type.
export type AnalyticsTables = {
  visit_rollups: VisitRollupTable;
  visit_days: VisitDayTable;
  visit_months: VisitMonthTable;
  visit_gaps: VisitGapTable;
  recorder_instances: RecorderInstanceTable;
  analytics_state: AnalyticsStateTable;
};

export type AnalyticsDB = DB & AnalyticsTables;

export const analyticsDb = (db: Kysely<DB>): Kysely<AnalyticsDB> => db.withTables<AnalyticsTables>();
