import type { Kysely } from 'kysely';
import type { DB } from '../platform/database/schema.js';

export type AuditAction =
  'link.suspend' | 'link.restore' | 'report.dismiss' | 'credits.grant' | 'blocklist.add' | 'blocklist.remove' | 'trials.suspend' | 'account.make-operator';

export interface AuditEntry {
  at: number;
  /** The operator's email, or `cli` for the command line. */
  actor: string;
  action: AuditAction;
  subject: string;
  details: Record<string, unknown>;
}

/** How many entries the console shows: the newest. */
export const AUDIT_PAGE = 100;

/** Every operator action, kept: who, what, on what, when (never deleted by the service). */
export class KyselyAuditLog {
  constructor(private readonly db: Kysely<DB>) {}

  async record(entry: AuditEntry): Promise<void> {
    await this.db
      .insertInto('audit_log')
      .values({
        at: entry.at,
        actor: entry.actor,
        action: entry.action,
        subject: entry.subject,
        details: JSON.stringify(entry.details),
      })
      .execute();
  }

  async recent(limit = AUDIT_PAGE): Promise<AuditEntry[]> {
    const rows = await this.db.selectFrom('audit_log').selectAll().orderBy('seq', 'desc').limit(limit).execute();
    return rows.map((row) => ({
      at: row.at,
      actor: row.actor,
      action: row.action as AuditAction,
      subject: row.subject,
      details: JSON.parse(row.details) as Record<string, unknown>,
    }));
  }
}
