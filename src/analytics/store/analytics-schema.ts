import type { Generated, Kysely } from 'kysely';
import type { DB } from '../../platform/database/schema.js';

// Tables of migration 0003 (analytics) and later, kept apart from the shared schema file.

/** One row per link and UTC day (migration 0008). */
export interface VisitRollupTable {
  link_id: string;
  day: string;
  /** Visits through /s/ and /q/ that day: the daily series, read without parsing `counts`. */
  s: number;
  q: number;
  /** JSON of every dimension's counts (rollup-counts.ts), `source` included. */
  counts: string;
}

export interface VisitJournalTable {
  id: string;
  bucket: number;
  created_at: number;
  /** Binary batch (journal.ts); null in rows written before migration 0005. */
  data: Uint8Array | null;
  /** Text counts of rows written before migration 0005; empty since. */
  entries: string;
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

/** Visits folded by roll-up passes, not yet added to links.visits (migration 0009). */
export interface LinkVisitDeltaTable {
  link_id: string;
  n: number;
}

/** The journal's number for a link (migration 0010, link-numbers.ts). */
export interface LinkNumberTable {
  num: Generated<number>;
  link_id: string;
}

export interface AnalyticsStateTable {
  name: string;
  value: number;
}

// A type alias, not an interface: withTables needs an index-compatible record type.
export type AnalyticsTables = {
  visit_rollups: VisitRollupTable;
  visit_journal: VisitJournalTable;
  visit_days: VisitDayTable;
  visit_months: VisitMonthTable;
  visit_gaps: VisitGapTable;
  recorder_instances: RecorderInstanceTable;
  analytics_state: AnalyticsStateTable;
  link_visit_deltas: LinkVisitDeltaTable;
  link_numbers: LinkNumberTable;
};

export type AnalyticsDB = DB & AnalyticsTables;

export const analyticsDb = (db: Kysely<DB>): Kysely<AnalyticsDB> => db.withTables<AnalyticsTables>();
