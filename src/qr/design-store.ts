import type { Kysely } from 'kysely';
import type { DB } from '../platform/database/schema.js';
import type { QrDesignInput } from './design-schemas.js';

export interface SavedDesign {
  design: QrDesignInput;
  updatedAt: number;
}

export interface QrDesignStore {
  get(linkId: string): Promise<SavedDesign | undefined>;
  put(linkId: string, design: QrDesignInput, now: number): Promise<void>;
}

/** One row per link (migration 0060); saving again replaces the design. */
export class KyselyQrDesignStore implements QrDesignStore {
  constructor(private readonly db: Kysely<DB>) {}

  async get(linkId: string): Promise<SavedDesign | undefined> {
    const row = await this.db.selectFrom('qr_designs').select(['design', 'updated_at']).where('link_id', '=', linkId).executeTakeFirst();
    return row && { design: JSON.parse(row.design) as QrDesignInput, updatedAt: Number(row.updated_at) };
  }

  async put(linkId: string, design: QrDesignInput, now: number): Promise<void> {
    const json = JSON.stringify(design);
    await this.db
      .insertInto('qr_designs')
      .values({ link_id: linkId, design: json, updated_at: now })
      .onConflict((oc) => oc.column('link_id').doUpdateSet({ design: json, updated_at: now }))
      .execute();
  }
}
