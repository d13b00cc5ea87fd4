import type { Kysely } from 'kysely';

/**
 * A link's saved QR design (docs/adr/0095): one row per link, the design as JSON text (colours, styles,
 * an optional logo data URL of at most 700 000 characters, the frame's text, the print size). Every
 * later export without a body of its own draws it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('qr_designs')
    .addColumn('link_id', 'text', (c) => c.primaryKey().references('links.id'))
    .addColumn('design', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}
