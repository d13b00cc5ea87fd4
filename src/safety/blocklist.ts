import { sql, type Kysely } from 'kysely';
import { normaliseHost } from '../links/targets.js';
import type { DB } from '../platform/database/schema.js';
import { RuleError } from '../platform/errors.js';

/**
 * The names a host falls under: itself and each parent domain, `a.b.example.org` →
 * `a.b.example.org`, `b.example.org`, `example.org`, `org`. A blocked domain covers every one of its
 * subdomains, so a host is blocked when any of these is on the list.
 */
export function domainsOf(host: string): string[] {
  const labels = host.split('.');
  return labels.map((_, i) => labels.slice(i).join('.'));
}

/** A domain as the operator types it (`Example.ORG.`, `*.example.org`, an IDN), in the form target hosts take. */
export function blockableDomain(raw: string): string {
  const domain = normaliseHost(raw.trim().replace(/^\*\./, ''));
  // An IP address is a host too, and blocking one is allowed; a bare label such as `com` is not a domain anyone should block by accident.
  if (domain === undefined || !domain.includes('.') || /[/?#@:]/.test(raw.trim().replace(/^\*\./, ''))) {
    throw new RuleError('invalid_request', `not a domain: ${raw}`);
  }
  return domain;
}

/** The operator's blocklist of destination domains (CONTRACT.md, `blocklist add|remove|list`). */
export class KyselyBlocklist {
  constructor(private readonly db: Kysely<DB>) {}

  /** Whether the host or one of its parent domains is on the list: one indexed query. */
  async covers(host: string): Promise<boolean> {
    const row = await this.db.selectFrom('blocked_domains').select('domain').where('domain', 'in', domainsOf(host)).executeTakeFirst();
    return row !== undefined;
  }

  /** Adds the domain; false when it was on the list already. */
  async add(domain: string, now: number): Promise<boolean> {
    const added = await this.db
      .insertInto('blocked_domains')
      .values({ domain, created_at: now })
      .onConflict((oc) => oc.column('domain').doNothing())
      .executeTakeFirst();
    return Number(added.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async remove(domain: string): Promise<boolean> {
    const removed = await this.db.deleteFrom('blocked_domains').where('domain', '=', domain).executeTakeFirst();
    return Number(removed.numDeletedRows) > 0;
  }

  async list(): Promise<string[]> {
    const rows = await this.db.selectFrom('blocked_domains').select('domain').orderBy('domain').execute();
    return rows.map((row) => row.domain);
  }

  /**
   * Links that are active or paused and point into the domain or below it. A LIKE on the domain's text
   * narrows the rows; the host of each is then compared exactly (`notexample.org` is not `example.org`).
   */
  async linksInto(domain: string): Promise<string[]> {
    let query = this.db.selectFrom('links').select(['id', 'target']).where('status', 'in', ['active', 'paused']);
    // Targets are kept as given, the host in any case (and an IDN in Unicode, which no text of its
    // punycode form matches: those domains are checked on every link). A `_` only widens the narrowing.
    if (!domain.includes('xn--')) query = query.where(sql`lower(target)`, 'like', `%${domain}%`);
    const rows = await query.execute();
    return rows.filter((row) => domainsOf(hostOf(row.target)).includes(domain)).map((row) => row.id);
  }
}

const hostOf = (target: string): string => {
  try {
    return new URL(target).hostname.replace(/\.+$/, '');
  } catch {
    return '';
  }
};
