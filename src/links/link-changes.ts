import crypto from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../platform/database/schema.js';
import type { LinkChange } from './ports.js';

/** Called inside the transaction that changes what a slug redirects to (or whether it exists). */
export async function recordLinkChange(tx: Transaction<DB> | Kysely<DB>, slug: string, now: number): Promise<void> {
  await tx.insertInto('link_changes').values({ id: crypto.randomUUID(), slug, changed_at: now }).execute();
}

export async function linkChangesSince(db: Kysely<DB>, since: number): Promise<LinkChange[]> {
  const rows = await db.selectFrom('link_changes').select(['id', 'slug', 'changed_at']).where('changed_at', '>=', since).execute();
  return rows.map((r) => ({ id: r.id, slug: r.slug, changedAt: Number(r.changed_at) }));
}

export async function purgeLinkChangesBefore(db: Kysely<DB>, before: number): Promise<void> {
  await db.deleteFrom('link_changes').where('changed_at', '<', before).execute();
}
