import { sql, type Kysely } from 'kysely';
import { AppError } from '../platform/errors.js';
import type { DB } from '../platform/database/schema.js';
import { recordLinkChange } from './link-changes.js';
import { payForLink, toLinkRecord } from './link-store.js';
import type { ClaimCommand, LinkRecord } from './ports.js';

/**
 * A trial link becomes a link of the account, with no expiry, in one transaction: the token proves
 * the caller holds the link, the link is paid for as any new link of the account (a free link of the
 * month or a committed reservation), and the guarded update (`account_id IS NULL`) makes a second,
 * concurrent claim roll back its payment. A claim of a link the account already holds returns it
 * unchanged and pays nothing: the claim is idempotent without an Idempotency-Key.
 */
export async function claimTrialLink(db: Kysely<DB>, command: ClaimCommand): Promise<LinkRecord> {
  const current = await db.selectFrom('links').selectAll().where('id', '=', command.id).executeTakeFirst();
  if (!current || current.trial_token_hash !== command.trialTokenHash) throw new AppError('not_found');
  if (current.account_id === command.owner.accountId) return toLinkRecord(current);
  if (current.account_id !== null) throw new AppError('not_found');
  if (current.expires_at !== null && current.expires_at <= command.now) throw new AppError('link_expired');
  if (current.status !== 'active' && current.status !== 'paused') throw new AppError('request_conflict');
  try {
    return await db.transaction().execute(async (tx) => {
      await payForLink(tx, command.owner, { id: current.id, createdAt: command.now });
      const row = await tx
        .updateTable('links')
        .set({ account_id: command.owner.accountId, trial: 0, expires_at: null, version: sql<number>`version + 1`, updated_at: command.now })
        .where('id', '=', command.id)
        .where('account_id', 'is', null)
        .where('status', 'in', ['active', 'paused'])
        .returningAll()
        .executeTakeFirst();
      if (!row) throw new ClaimedMeanwhile();
      // The redirect caches hold the trial's expiry: the change feed tells every instance to forget it.
      await recordLinkChange(tx, row.slug, command.now);
      return toLinkRecord(row);
    });
  } catch (error) {
    if (!(error instanceof ClaimedMeanwhile)) throw error;
    const after = await db.selectFrom('links').selectAll().where('id', '=', command.id).executeTakeFirst();
    if (after?.account_id === command.owner.accountId) return toLinkRecord(after);
    throw new AppError('not_found');
  }
}

/** A concurrent claim won the guarded update: this one's payment rolls back with its transaction. */
class ClaimedMeanwhile extends Error {}

/** Which of these slugs are in use (by a link of any status: a slug is never reused). */
export async function takenSlugs(db: Kysely<DB>, slugs: string[]): Promise<Set<string>> {
  if (slugs.length === 0) return new Set();
  const rows = await db.selectFrom('links').select('slug').where('slug', 'in', slugs).execute();
  return new Set(rows.map((row) => row.slug));
}

/** The tags strings of an account's links, each once (split into tags by the service). */
export async function tagTexts(db: Kysely<DB>, accountId: string): Promise<string[]> {
  const rows = await db.selectFrom('links').select('tags').distinct().where('account_id', '=', accountId).where('tags', '!=', '').execute();
  return rows.map((row) => row.tags);
}

/** Every link of an account, newest first, for the CSV export (bounded: one answer, not a stream). */
export async function allLinks(db: Kysely<DB>, accountId: string, limit: number): Promise<LinkRecord[]> {
  const rows = await db
    .selectFrom('links')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toLinkRecord);
}
