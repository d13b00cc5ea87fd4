import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as baseline from './migrations/0001-baseline.js';
import * as statusBeforeSuspension from './migrations/0011-status-before-suspension.js';
import * as accountSignIn from './migrations/0012-account-sign-in.js';
import * as sessions from './migrations/0013-sessions.js';
import * as rollupWriters from './migrations/0014-rollup-writers.js';
import * as linksFillfactor from './migrations/0015-links-fillfactor.js';
import * as rollupsFillfactor from './migrations/0016-rollups-fillfactor.js';
import * as rollupCountsAsArrays from './migrations/0017-rollup-counts-as-arrays.js';
import * as linkChangeNotices from './migrations/0018-link-change-notices.js';
import * as visitCounts from './migrations/0020-visit-counts.js';
import * as trustAndSafety from './migrations/0050-trust-and-safety.js';
import * as twoFactor from './migrations/0051-two-factor.js';
import * as qrDesigns from './migrations/0060-qr-designs.js';
import * as visitTallies from './migrations/0080-visit-tallies.js';
import * as tallyVersions from './migrations/0081-tally-versions.js';
import * as visitSums from './migrations/0082-visit-sums.js';
import * as readKeys from './migrations/0083-read-keys.js';
import * as instanceWriters from './migrations/0084-instance-writers.js';
import * as instanceFlushes from './migrations/0085-instance-flushes.js';

/**
 * One set of migrations for SQLite and PostgreSQL, one file each under migrations/. Only types both
 * understand are used: text, integer and bigint (SQLite gives bigint integer affinity). Migrations
 * never import app code. Kysely's migrator takes a lock, so instances starting together are safe.
 */
const migrations: Record<string, Migration> = {
  // 0002 to 0010 were folded into the baseline before the first deployment; later numbers are kept.
  '0001_baseline': baseline,
  '0011_status_before_suspension': statusBeforeSuspension,
  '0012_account_sign_in': accountSignIn,
  '0013_sessions': sessions,
  '0014_rollup_writers': rollupWriters,
  '0015_links_fillfactor': linksFillfactor,
  '0016_rollups_fillfactor': rollupsFillfactor,
  '0017_rollup_counts_as_arrays': rollupCountsAsArrays,
  '0018_link_change_notices': linkChangeNotices,
  '0020_visit_counts': visitCounts,
  '0050_trust_and_safety': trustAndSafety,
  '0051_two_factor': twoFactor,
  '0060_qr_designs': qrDesigns,
  '0080_visit_tallies': visitTallies,
  '0081_tally_versions': tallyVersions,
  '0082_visit_sums': visitSums,
  '0083_read_keys': readKeys,
  '0084_instance_writers': instanceWriters,
  '0085_instance_flushes': instanceFlushes,
};

export const migrationProvider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const { error, results } = await new Migrator({ db, provider: migrationProvider }).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}
