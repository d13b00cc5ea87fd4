import { sql, type Kysely, type Transaction } from 'kysely';
import { AppError } from '../platform/errors.js';
import { nextUtcMidnight, secondsUntil } from '../platform/time.js';
import type { ClaimCommand, CreateLinkCommand, LinkChange, LinkChanges, LinkOwner, LinkRecord, LinkStatus, LinkStore, ListOptions } from './ports.js';
import { holdsTag } from './link-tags.js';
import { containsIgnoringCase } from '../platform/database/like.js';
import type { DB, LinkRow } from '../platform/database/schema.js';
import { commitReservation } from '../billing/credit-store.js';
import { completeClaim } from '../platform/idempotency/idempotency-store.js';
import { linkChangesSince, recordLinkChange } from './link-changes.js';
import { isUniqueViolation } from '../platform/database/sql-errors.js';

export function toLinkRecord(row: LinkRow): LinkRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    slug: row.slug,
    target: row.target,
    title: row.title,
    tags: row.tags,
    status: row.status as LinkStatus,
    version: row.version,
    trial: row.trial === 1,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    visits: Number(row.visits),
  };
}

export class KyselyLinkStore implements LinkStore {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * One transaction: claim the Idempotency-Key, count the link against its allowance, insert it and
   * keep the response for replays. Any failure rolls all of it back, so a link never exists without
   * its idempotency record, nor a record without its link, nor a counted allowance without a link.
   */
  async create(command: CreateLinkCommand): Promise<LinkRecord> {
    try {
      return await this.db.transaction().execute(async (tx) => {
        await payForLink(tx, command.owner, command.link);
        const record = await insertLink(tx, command);
        // Another instance may hold "no such slug" for an alias asked for before it existed.
        await recordLinkChange(tx, record.slug, record.createdAt);
        const { response, sealedSecret } = command.render(record);
        await completeClaim(tx, command.claim.id, response, sealedSecret);
        return record;
      });
    } catch (error) {
      if (isUniqueViolation(error, 'slug')) throw new AppError('request_conflict');
      throw error;
    }
  }

  async byId(id: string): Promise<LinkRecord | undefined> {
    const row = await this.db.selectFrom('links').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toLinkRecord(row);
  }

  async bySlug(slug: string): Promise<LinkRecord | undefined> {
    const row = await this.db.selectFrom('links').selectAll().where('slug', '=', slug).executeTakeFirst();
    return row && toLinkRecord(row);
  }

  async byTrialTokenHash(hash: string): Promise<LinkRecord | undefined> {
    // A claimed link is the account's: its trial token no longer reads it.
    const row = await this.db.selectFrom('links').selectAll().where('trial_token_hash', '=', hash).where('account_id', 'is', null).executeTakeFirst();
    return row && toLinkRecord(row);
  }

  async list(accountId: string, offset: number, limit: number, search: string | undefined, options: ListOptions = {}): Promise<LinkRecord[]> {
    let query = this.db.selectFrom('links').selectAll().where('account_id', '=', accountId);
    if (options.tag) query = query.where(holdsTag(options.tag));
    if (search) {
      const matches = (column: 'slug' | 'target' | 'title' | 'tags') => containsIgnoringCase(column, search);
      query = query.where((eb) => eb.or([matches('slug'), matches('target'), matches('title'), matches('tags')]));
    }
    if (options.sort === 'visits') query = query.orderBy('visits', 'desc');
    if (options.sort === 'title') query = query.orderBy(sql`case when title = '' then 1 else 0 end`).orderBy(sql`lower(title)`);
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
    return rows.map(toLinkRecord);
  }

  /** Every link of an account, newest first: at most `limit` for the CSV export (one answer, not a stream), all for the CLI. */
  async all(accountId: string, limit?: number): Promise<LinkRecord[]> {
    const rows = await this.db
      .selectFrom('links')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .$if(limit !== undefined, (q) => q.limit(limit!))
      .execute();
    return rows.map(toLinkRecord);
  }

  /** The tags strings of an account's links, each once (split into tags by the service). */
  async tagTexts(accountId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('links').select('tags').distinct().where('account_id', '=', accountId).where('tags', '!=', '').execute();
    return rows.map((row) => row.tags);
  }

  /** Which of these slugs are in use (by a link of any status: a slug is never reused). */
  async takenSlugs(slugs: string[]): Promise<Set<string>> {
    if (slugs.length === 0) return new Set();
    const rows = await this.db.selectFrom('links').select('slug').where('slug', 'in', slugs).execute();
    return new Set(rows.map((row) => row.slug));
  }

  /**
   * A trial link becomes a link of the account, with no expiry, in one transaction: the token proves
   * the caller holds the link, the link is paid for as any new link of the account (a free link of the
   * month or a committed reservation), and the guarded update (`account_id IS NULL`) makes a second,
   * concurrent claim roll back its payment. A claim of a link the account already holds returns it
   * unchanged and pays nothing: the claim is idempotent without an Idempotency-Key.
   */
  async claim(command: ClaimCommand): Promise<LinkRecord> {
    const current = await this.db.selectFrom('links').selectAll().where('id', '=', command.id).executeTakeFirst();
    if (!current || current.trial_token_hash !== command.trialTokenHash) throw new AppError('not_found');
    if (current.account_id === command.owner.accountId) return toLinkRecord(current);
    if (current.account_id !== null) throw new AppError('not_found');
    if (current.expires_at !== null && current.expires_at <= command.now) throw new AppError('link_expired');
    if (current.status !== 'active' && current.status !== 'paused') throw new AppError('request_conflict');
    try {
      return await this.db.transaction().execute(async (tx) => {
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
      const after = await this.db.selectFrom('links').selectAll().where('id', '=', command.id).executeTakeFirst();
      if (after?.account_id === command.owner.accountId) return toLinkRecord(after);
      throw new AppError('not_found');
    }
  }

  async update(id: string, accountId: string, version: number, changes: LinkChanges, now: number): Promise<LinkRecord | undefined> {
    return this.db.transaction().execute(async (tx) => {
      const row = await tx
        .updateTable('links')
        .set({ ...changes, version: sql<number>`version + 1`, updated_at: now })
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .where('version', '=', version)
        .where('status', 'in', ['active', 'paused'])
        .returningAll()
        .executeTakeFirst();
      if (row) await recordLinkChange(tx, row.slug, now);
      return row && toLinkRecord(row);
    });
  }

  changesSince(since: number): Promise<LinkChange[]> {
    return linkChangesSince(this.db, since);
  }

  async trialLinksCreated(network: string, day: string): Promise<number> {
    const row = await this.db.selectFrom('trial_days').select('links_created').where('network', '=', network).where('day', '=', day).executeTakeFirst();
    return row?.links_created ?? 0;
  }
}

async function payForLink(tx: Transaction<DB>, owner: LinkOwner, link: { id: string; createdAt: number }): Promise<void> {
  if (owner.kind === 'paid') {
    await commitReservation(tx, owner.reservationId, 'link_spend', link.id, link.createdAt);
    return;
  }
  if (owner.kind === 'account') {
    if (!(await increment(tx, 'account_months', { account_id: owner.accountId, month: owner.month }, owner.freeLinksPerMonth))) {
      throw new AppError('link_allowance_required');
    }
    return;
  }
  // The trial's daily caps start over at midnight UTC: that is the wait to name.
  const untilMidnight = secondsUntil(link.createdAt, nextUtcMidnight(link.createdAt));
  if (!(await increment(tx, 'trial_days', { network: owner.network, day: owner.day }, owner.perNetwork))) {
    throw new AppError('rate_limited', untilMidnight);
  }
  if (!(await increment(tx, 'trial_days', { network: '*', day: owner.day }, owner.perDay))) {
    throw new AppError('links_unavailable', untilMidnight);
  }
}

/**
 * Guarded counter: adds one to links_created unless it already reached the limit, in one statement
 * (an upsert whose update carries the guard). Row locks on PostgreSQL and the single writer of SQLite
 * make parallel increments exact. Returns whether the increment happened.
 */
async function increment(tx: Transaction<DB>, table: 'account_months' | 'trial_days', key: Record<string, string>, limit: number): Promise<boolean> {
  if (limit <= 0) return false;
  const columns = Object.keys(key);
  const row = await tx
    .insertInto(table)
    .values({ ...key, links_created: 1 } as never)
    .onConflict((oc) =>
      oc
        .columns(columns as never)
        .doUpdateSet({ links_created: sql`${sql.ref(`${table}.links_created`)} + 1` } as never)
        .where(sql.ref(`${table}.links_created`), '<', limit),
    )
    .returning('links_created')
    .executeTakeFirst();
  return row !== undefined;
}

async function insertLink(tx: Transaction<DB>, command: CreateLinkCommand): Promise<LinkRecord> {
  const slug = command.alias ?? (await freeSlug(tx, command.nextSlug));
  if (command.alias !== undefined) {
    const taken = await tx.selectFrom('links').select('id').where('slug', '=', slug).executeTakeFirst();
    if (taken) throw new AppError('request_conflict');
  }
  const { link } = command;
  const row = await tx
    .insertInto('links')
    .values({
      id: link.id,
      account_id: link.accountId,
      slug,
      target: link.target,
      title: link.title,
      tags: link.tags,
      status: link.status,
      version: link.version,
      trial: link.trial ? 1 : 0,
      expires_at: link.expiresAt,
      trial_token_hash: command.trialTokenHash,
      trial_network: command.owner.kind === 'trial' ? command.owner.network : null,
      created_at: link.createdAt,
      updated_at: link.updatedAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toLinkRecord(row);
}

/** Random slugs are checked before the insert; a collision in 62^8 is rare, a second one rarer still. */
async function freeSlug(tx: Transaction<DB>, nextSlug: () => string): Promise<string> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const slug = nextSlug();
    const taken = await tx.selectFrom('links').select('id').where('slug', '=', slug).executeTakeFirst();
    if (!taken) return slug;
  }
  throw new AppError('links_unavailable');
}

/** A concurrent claim won the guarded update: this one's payment rolls back with its transaction. */
class ClaimedMeanwhile extends Error {}
