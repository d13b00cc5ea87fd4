import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as foundation from './migrations/0001-foundation.js';
import * as billing from './migrations/0002-billing.js';
import * as analytics from './migrations/0003-analytics.js';
import * as linkChanges from './migrations/0004-link-changes.js';
import * as binaryJournal from './migrations/0005-binary-journal.js';
import * as rollupSpans from './migrations/0006-rollup-spans.js';
import * as rollupsByDay from './migrations/0007-rollups-by-day.js';
import * as rollupRows from './migrations/0008-rollup-rows.js';
import * as linkVisitDeltas from './migrations/0009-link-visit-deltas.js';
import * as linkNumbers from './migrations/0010-link-numbers.js';
import * as statusBeforeSuspension from './migrations/0011-status-before-suspension.js';
import * as accountSignIn from './migrations/0012-account-sign-in.js';
import * as sessions from './migrations/0013-sessions.js';

/**
 * One set of migrations for SQLite and PostgreSQL, one file each under migrations/. Only types both
 * understand are used: text, integer and bigint (SQLite gives bigint integer affinity), and binary
 * (SQLite blob, PostgreSQL bytea). Migrations never import app code. Kysely's migrator takes a lock,
 * so instances starting together are safe.
 */
const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_billing': billing,
  '0003_analytics': analytics,
  '0004_link_changes': linkChanges,
  '0005_binary_journal': binaryJournal,
  '0006_rollup_spans': rollupSpans,
  '0007_rollups_by_day': rollupsByDay,
  '0008_rollup_rows': rollupRows,
  '0009_link_visit_deltas': linkVisitDeltas,
  '0010_link_numbers': linkNumbers,
  '0011_status_before_suspension': statusBeforeSuspension,
  '0012_account_sign_in': accountSignIn,
  '0013_sessions': sessions,
};

export const migrationProvider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const { error, results } = await new Migrator({ db, provider: migrationProvider }).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}
