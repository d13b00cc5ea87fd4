import crypto from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import { AppError } from '../platform/errors.js';
import type { CreditStore, ReservationRequest } from './ports.js';
import type { DB } from '../platform/database/schema.js';

/**
 * Purchased credits and key budgets. Every change is a guarded update inside a transaction: the
 * balance check and the change are one statement, so parallel spends can never overdraw.
 *
 * A spend is two steps. reserve() holds the amount (accounts.reserved_credits and the key's month) in
 * its own transaction; commitReservation() turns it into a ledger spend inside the transaction that
 * saves what was bought; release() gives it back. Commit and release both require status 'active', so
 * whichever comes first wins and a reservation is never both, nor committed twice.
 */
export class KyselyCreditStore implements CreditStore {
  constructor(private readonly db: Kysely<DB>) {}

  async reserve(request: ReservationRequest): Promise<string> {
    const id = crypto.randomUUID();
    await this.db.transaction().execute(async (tx) => {
      const held = await tx
        .updateTable('accounts')
        .set({ reserved_credits: sql<number>`reserved_credits + ${request.amount}` })
        .where('id', '=', request.accountId)
        .where(sql<boolean>`purchased_balance - reserved_credits >= ${request.amount}`)
        .returning('id')
        .executeTakeFirst();
      if (!held) throw new AppError('credits_required');
      if (request.keyId !== null && !(await addKeySpend(tx, request.keyId, request.month, request.amount, request.budget))) {
        throw new AppError('api_budget_exceeded');
      }
      await tx
        .insertInto('credit_reservations')
        .values({
          id,
          account_id: request.accountId,
          key_id: request.keyId,
          month: request.month,
          amount: request.amount,
          purpose: request.purpose,
          status: 'active',
          created_at: request.now,
          expires_at: request.now + request.ttlMs,
        })
        .execute();
    });
    return id;
  }

  /** Gives a reservation back; does nothing if it was committed or released already. */
  async release(id: string): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const reservation = await tx
        .updateTable('credit_reservations')
        .set({ status: 'released' })
        .where('id', '=', id)
        .where('status', '=', 'active')
        .returning(['account_id', 'key_id', 'month', 'amount'])
        .executeTakeFirst();
      if (!reservation) return;
      await tx
        .updateTable('accounts')
        .set({ reserved_credits: sql<number>`reserved_credits - ${reservation.amount}` })
        .where('id', '=', reservation.account_id)
        .execute();
      if (reservation.key_id === null) return;
      await tx
        .updateTable('key_months')
        .set({ spent: sql<number>`spent - ${reservation.amount}` })
        .where('key_id', '=', reservation.key_id)
        .where('month', '=', reservation.month)
        .execute();
    });
  }

  /** Releases reservations that outlived their request (a crash between reserve and commit). */
  async releaseExpired(now: number): Promise<number> {
    const stale = await this.db.selectFrom('credit_reservations').select('id').where('status', '=', 'active').where('expires_at', '<', now).execute();
    for (const { id } of stale) await this.release(id);
    return stale.length;
  }

  async balance(accountId: string): Promise<{ purchased: number; reserved: number }> {
    const row = await this.db.selectFrom('accounts').select(['purchased_balance', 'reserved_credits']).where('id', '=', accountId).executeTakeFirstOrThrow();
    return { purchased: row.purchased_balance, reserved: row.reserved_credits };
  }

  async keySpent(keyId: string, month: string): Promise<number> {
    const row = await this.db.selectFrom('key_months').select('spent').where('key_id', '=', keyId).where('month', '=', month).executeTakeFirst();
    return row?.spent ?? 0;
  }
}

/**
 * Counts a spend against the key's month, guarded by its budget (none: no limit, but still counted so
 * keySpent is reported). Returns false when the budget would be exceeded.
 */
async function addKeySpend(tx: Transaction<DB>, keyId: string, month: string, amount: number, budget: number | null): Promise<boolean> {
  if (budget !== null && amount > budget) return false;
  const row = await tx
    .insertInto('key_months')
    .values({ key_id: keyId, month, spent: amount })
    .onConflict((oc) => {
      const update = oc.columns(['key_id', 'month']).doUpdateSet({ spent: sql<number>`key_months.spent + ${amount}` });
      return budget === null ? update : update.where(sql<boolean>`key_months.spent + ${amount} <= ${budget}`);
    })
    .returning('spent')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Inside the transaction that saves what was bought: the reservation becomes a ledger spend. Fails
 * (rolling the purchase back) if the reservation is no longer active, e.g. released as expired.
 */
export async function commitReservation(tx: Transaction<DB>, reservationId: string, kind: string, reference: string, now: number): Promise<void> {
  const reservation = await tx
    .updateTable('credit_reservations')
    .set({ status: 'committed' })
    .where('id', '=', reservationId)
    .where('status', '=', 'active')
    .returning(['account_id', 'amount'])
    .executeTakeFirst();
  if (!reservation) throw new AppError('links_unavailable', 1);
  await changeBalance(tx, {
    accountId: reservation.account_id,
    amount: -reservation.amount,
    kind,
    reference,
    now,
    releasesReserved: reservation.amount,
  });
}

/**
 * The one way purchased_balance changes: the balance moves by `amount` and an append-only ledger row
 * records it with the balance after it, in the caller's transaction, so the ledger always sums to the
 * balance. `releasesReserved` lowers the reserved credits in the same statement (a committed spend).
 * Returns the new balance.
 */
export async function changeBalance(
  tx: Transaction<DB>,
  entry: { accountId: string; amount: number; kind: string; reference: string | null; now: number; releasesReserved?: number },
): Promise<number> {
  const released = entry.releasesReserved ?? 0;
  const account = await tx
    .updateTable('accounts')
    .set({
      purchased_balance: sql<number>`purchased_balance + ${entry.amount}`,
      reserved_credits: sql<number>`reserved_credits - ${released}`,
    })
    .where('id', '=', entry.accountId)
    .returning('purchased_balance')
    .executeTakeFirstOrThrow();
  await tx
    .insertInto('credit_ledger')
    .values({
      id: crypto.randomUUID(),
      account_id: entry.accountId,
      kind: entry.kind,
      amount: entry.amount,
      balance_after: account.purchased_balance,
      reference: entry.reference,
      created_at: entry.now,
    })
    .execute();
  return account.purchased_balance;
}
