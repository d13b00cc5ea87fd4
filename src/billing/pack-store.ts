import type { Kysely } from 'kysely';
import type { PackRecord, PackStore } from './ports.js';
import { changeBalance, commitReservation } from './credit-store.js';
import { completeClaim } from '../platform/idempotency/idempotency-store.js';
import type { DB } from '../platform/database/schema.js';

type PackRow = DB['capacity_packs'];

const toPackRecord = (row: PackRow): PackRecord => ({
  id: row.id,
  accountId: row.account_id,
  status: row.status as PackRecord['status'],
  credits: row.credits,
  visits: row.visits,
  visitsUsed: row.visits_used,
  createdAt: row.created_at,
});

/** Recording-capacity packs: bought with a committed reservation, refunded by the operator when unused. */
export class KyselyPackStore implements PackStore {
  constructor(private readonly db: Kysely<DB>) {}

  async create(command: Parameters<PackStore['create']>[0]) {
    const { claim, pack } = command;
    return this.db.transaction().execute(async (tx) => {
      await commitReservation(tx, command.reservationId, 'pack_spend', pack.id, pack.createdAt);
      const row = await tx
        .insertInto('capacity_packs')
        .values({
          id: pack.id,
          account_id: pack.accountId,
          status: 'active',
          credits: pack.credits,
          visits: pack.visits,
          visits_used: 0,
          created_at: pack.createdAt,
          refunded_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const record = toPackRecord(row);
      await completeClaim(tx, claim.id, command.render(record), null);
      return record;
    });
  }

  async list(accountId: string): Promise<PackRecord[]> {
    const rows = await this.db.selectFrom('capacity_packs').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
    return rows.map(toPackRecord);
  }

  /**
   * An unused, active pack goes back: status refunded and its credits returned to the balance, with a
   * ledger row, in one transaction. The guard (active, nothing recorded) is part of the update itself,
   * so a pack that recording starts to use at the same moment is either refunded or used, never both.
   * With an account, only that account's pack. Undefined when nothing was refunded.
   */
  async refund(id: string, now: number, accountId?: string): Promise<{ pack: PackRecord; purchasedBalance: number } | undefined> {
    return this.db.transaction().execute(async (tx) => {
      let update = tx
        .updateTable('capacity_packs')
        .set({ status: 'refunded', refunded_at: now })
        .where('id', '=', id)
        .where('status', '=', 'active')
        .where('visits_used', '=', 0);
      if (accountId !== undefined) update = update.where('account_id', '=', accountId);
      const row = await update.returningAll().executeTakeFirst();
      if (!row) return undefined;
      const purchasedBalance = await changeBalance(tx, { accountId: row.account_id, amount: row.credits, kind: 'refund', reference: id, now });
      return { pack: toPackRecord(row), purchasedBalance };
    });
  }

  async byId(id: string): Promise<PackRecord | undefined> {
    const row = await this.db.selectFrom('capacity_packs').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toPackRecord(row);
  }
}
