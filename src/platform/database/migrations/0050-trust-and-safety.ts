import { SqliteAdapter, type Kysely } from 'kysely';

/**
 * Trust and safety (docs/adr/0080): the operator's blocklist of destination domains, reports of links
 * from anyone, the audit log of operator actions, operators among the accounts, and the network (its
 * salted hash, never the address) that made a trial link, so that a network's trial links of a day can
 * be suspended together.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('blocked_domains')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('reports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('link_id', 'text', (c) => c.notNull().references('links.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('resolved_at', 'bigint')
    .execute();
  await db.schema.createIndex('reports_status_created').on('reports').columns(['status', 'created_at']).execute();
  // A sequence orders entries written in the same millisecond.
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('audit_log')
    .addColumn('seq', sqlite ? 'integer' : 'bigserial', (c) => (sqlite ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('operator', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('links').addColumn('trial_network', 'text').execute();
  await db.schema.createIndex('links_trial_network').on('links').columns(['trial_network', 'created_at']).execute();
}
