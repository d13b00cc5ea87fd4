import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../platform/database/schema.js';

export type ReportStatus = 'open' | 'suspended' | 'dismissed';

export interface ReportRecord {
  id: string;
  linkId: string;
  url: string;
  reason: string;
  status: ReportStatus;
  createdAt: number;
  resolvedAt: number | null;
}

/** How many reports the console lists at once: the oldest open ones first. */
export const REPORT_PAGE = 100;

/** Reports of links by anyone (src/safety/reports.ts). */
export class KyselyReportStore {
  constructor(private readonly db: Kysely<DB>) {}

  async create(report: { linkId: string; url: string; reason: string; network: string; now: number }): Promise<ReportRecord> {
    const row = { id: crypto.randomUUID(), link_id: report.linkId, url: report.url, reason: report.reason, network: report.network, status: 'open' };
    await this.db
      .insertInto('reports')
      .values({ ...row, created_at: report.now, resolved_at: null })
      .execute();
    return { id: row.id, linkId: report.linkId, url: report.url, reason: report.reason, status: 'open', createdAt: report.now, resolvedAt: null };
  }

  async byId(id: string): Promise<ReportRecord | undefined> {
    const row = await this.db.selectFrom('reports').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toReport(row);
  }

  /** Open reports, oldest first (the queue), or the newest resolved ones. */
  async list(status: ReportStatus, limit = REPORT_PAGE): Promise<ReportRecord[]> {
    const rows = await this.db
      .selectFrom('reports')
      .selectAll()
      .where('status', '=', status)
      .orderBy('created_at', status === 'open' ? 'asc' : 'desc')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toReport);
  }

  /** Closes the report, or every open report of its link; returns how many were still open. */
  async resolve(where: { id: string } | { linkId: string }, status: Exclude<ReportStatus, 'open'>, now: number): Promise<number> {
    const query = this.db.updateTable('reports').set({ status, resolved_at: now }).where('status', '=', 'open');
    const result = await ('id' in where ? query.where('id', '=', where.id) : query.where('link_id', '=', where.linkId)).executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}

function toReport(row: {
  id: string;
  link_id: string;
  url: string;
  reason: string;
  status: string;
  created_at: number;
  resolved_at: number | null;
}): ReportRecord {
  return {
    id: row.id,
    linkId: row.link_id,
    url: row.url,
    reason: row.reason,
    status: row.status as ReportStatus,
    createdAt: row.created_at,
    resolvedAt: row.resolved_at,
  };
}
