import { sql, type Kysely, type RawBuilder } from 'kysely';
import { recordLinkChange } from './link-changes.js';
import type { LinkStatus } from './ports.js';
import type { DB } from '../platform/database/schema.js';
import type { ModerationOutcome, ModerationStore } from './moderation-service.js';

type StatusChange = { status: RawBuilder<string> | LinkStatus; status_before_suspension: RawBuilder<string> | null };

/**
 * Operator abuse controls. Each change is one guarded UPDATE (the WHERE names the statuses it may
 * start from), so a suspend racing an owner's PATCH either lands before it (the PATCH then finds a
 * suspended link and is refused) or after it; never half of each. Version and updated_at rise like
 * any other change, so an owner holding the old version must re-read before editing again.
 */
export class KyselyModerationStore implements ModerationStore {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * Active or paused → suspended, keeping the status it had. Suspending a suspended link changes
   * nothing, so the kept status is the one from before the first suspension.
   */
  suspend(id: string, now: number): Promise<ModerationOutcome> {
    return this.move(id, ['active', 'paused'], { status: 'suspended', status_before_suspension: sql<string>`status` }, now);
  }

  /** Suspended → the status it had before the suspension (active when none is kept). */
  restore(id: string, now: number): Promise<ModerationOutcome> {
    const before = sql<string>`coalesce(status_before_suspension, 'active')`;
    return this.move(id, ['suspended'], { status: before, status_before_suspension: null }, now);
  }

  private async move(id: string, from: LinkStatus[], to: StatusChange, now: number): Promise<ModerationOutcome> {
    const row = await this.db.transaction().execute(async (tx) => {
      const changed = await tx
        .updateTable('links')
        .set({ ...to, version: sql<number>`version + 1`, updated_at: now })
        .where('id', '=', id)
        .where('status', 'in', from)
        .returning(['slug', 'status', 'account_id'])
        .executeTakeFirst();
      if (changed) await recordLinkChange(tx, changed.slug, now);
      return changed;
    });
    if (row) return { kind: 'changed', status: row.status as LinkStatus, slug: row.slug, accountId: row.account_id };
    const current = await this.db.selectFrom('links').select(['slug', 'status']).where('id', '=', id).executeTakeFirst();
    return current ? { kind: 'unchanged', status: current.status as LinkStatus, slug: current.slug } : { kind: 'missing' };
  }
}
