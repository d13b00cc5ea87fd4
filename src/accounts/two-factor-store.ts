import type { Kysely } from 'kysely';
import type { DB } from '../platform/database/schema.js';

/** The two-factor columns of accounts and the recovery codes (two-factor.ts asks; this is its SQL). */
export class KyselyTwoFactorStore {
  constructor(private readonly db: Kysely<DB>) {}

  async state(accountId: string): Promise<{ secret: string | null; pending: string | null; recoveryCodesLeft: number }> {
    const row = await this.db.selectFrom('accounts').select(['totp_secret', 'totp_pending_secret']).where('id', '=', accountId).executeTakeFirst();
    const left = await this.db
      .selectFrom('recovery_codes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('used_at', 'is', null)
      .executeTakeFirstOrThrow();
    return { secret: row?.totp_secret ?? null, pending: row?.totp_pending_secret ?? null, recoveryCodesLeft: Number(left.n) };
  }

  async setPending(accountId: string, secret: string): Promise<void> {
    await this.db.updateTable('accounts').set({ totp_pending_secret: secret }).where('id', '=', accountId).execute();
  }

  /** Turns the pending secret on, with the step just used and new recovery codes; false if it was not pending. */
  async enable(accountId: string, pending: string, step: number, codeHashes: string[]): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const done = await tx
        .updateTable('accounts')
        .set({ totp_secret: pending, totp_pending_secret: null, totp_last_step: step })
        .where('id', '=', accountId)
        .where('totp_pending_secret', '=', pending)
        .where('totp_secret', 'is', null)
        .executeTakeFirst();
      if (Number(done.numUpdatedRows) === 0) return false;
      await tx.deleteFrom('recovery_codes').where('account_id', '=', accountId).execute();
      await tx
        .insertInto('recovery_codes')
        .values(codeHashes.map((code_hash) => ({ account_id: accountId, code_hash, used_at: null })))
        .execute();
      return true;
    });
  }

  async disable(accountId: string): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.updateTable('accounts').set({ totp_secret: null, totp_pending_secret: null, totp_last_step: null }).where('id', '=', accountId).execute();
      await tx.deleteFrom('recovery_codes').where('account_id', '=', accountId).execute();
    });
  }

  /** Takes the step if no later or equal one was taken: a code is accepted once, even by two requests at once. */
  async takeStep(accountId: string, step: number): Promise<boolean> {
    const done = await this.db
      .updateTable('accounts')
      .set({ totp_last_step: step })
      .where('id', '=', accountId)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
      .executeTakeFirst();
    return Number(done.numUpdatedRows) > 0;
  }

  /** Uses the recovery code once; false when it is unknown or used. */
  async useRecoveryCode(accountId: string, codeHash: string, now: number): Promise<boolean> {
    const done = await this.db
      .updateTable('recovery_codes')
      .set({ used_at: now })
      .where('account_id', '=', accountId)
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(done.numUpdatedRows) > 0;
  }
}
