import { fullFormats } from 'ajv-formats/dist/formats.js';
import { API_LIMITS, formatCount } from '../../../../src/platform/api-limits.js';
import { ALIAS_PATTERN } from '../../../../src/links/slugs.js';
import { checkTarget, isHostName, normaliseHost } from '../../../../src/links/target-rules.js';
import { destinationOf } from '../links/new-link-fields.js';
import { aliasOf, tagsOf, type SourceRow } from './columns.js';

const { links: bounds } = API_LIMITS;

/** The body of POST /links for a row, without `maxCredits` (which the cost plan adds). */
export interface RowBody {
  target: string;
  title?: string;
  tags?: string;
  alias?: string;
}

export interface CheckedRow extends SourceRow {
  body: RowBody;
  /** The row's Idempotency-Key: the same import and the same body give the same key. */
  key: string;
  /** Why the row cannot be made, in plain words; absent when it can. */
  problem?: string;
  /** What was changed to make the row fit (a title shortened, an address written in ASCII). */
  notes: string[];
}

/** The API validates `target` with this very function (ajv-formats' `uri`, app.ts). */
const isUri = fullFormats.uri as (text: string) => boolean;
const ALIAS = new RegExp(ALIAS_PATTERN);

/**
 * Each row as creation would take it, and what is wrong with it that can be told before sending: the
 * destination by the rules creation applies to its text (the service's own host is `host`), the alias,
 * tags, and rows that repeat an earlier row or its alias. Taken aliases need the server (withTaken).
 */
export async function checkRows(rows: SourceRow[], importId: string, host: string): Promise<CheckedRow[]> {
  const hosts = { names: new Set([normaliseHost(host) ?? host]), suffixes: [] };
  const firstOfBody = new Map<string, number>();
  const firstOfAlias = new Map<string, number>();
  const checked: CheckedRow[] = [];
  for (const source of rows) {
    const { body, notes } = bodyOf(source);
    const text = JSON.stringify([body.target, body.title ?? '', body.tags ?? '', body.alias ?? '']);
    let problem = targetProblem(body.target, hosts) ?? fieldProblem(source, body);
    const same = firstOfBody.get(text);
    const sameAlias = body.alias === undefined ? undefined : firstOfAlias.get(body.alias);
    if (!problem && same !== undefined) problem = `Same as row ${same}: made once.`;
    else if (!problem && sameAlias !== undefined) problem = `Row ${sameAlias} has the alias ${body.alias} already.`;
    if (!problem) {
      firstOfBody.set(text, source.row);
      if (body.alias !== undefined) firstOfAlias.set(body.alias, source.row);
    }
    checked.push({ ...source, body, notes, key: await rowKey(importId, text), ...(problem && { problem }) });
  }
  return checked;
}

/** Rows whose alias the server says is taken cannot be made; `sent` rows may have taken it themselves. */
export function withTaken(rows: CheckedRow[], taken: ReadonlySet<string>, sent: (row: CheckedRow) => boolean): CheckedRow[] {
  return rows.map((row) =>
    !row.problem && !sent(row) && row.body.alias !== undefined && taken.has(row.body.alias)
      ? { ...row, problem: `The alias ${row.body.alias} is taken.` }
      : row,
  );
}

function bodyOf(source: SourceRow): { body: RowBody; notes: string[] } {
  const notes: string[] = [];
  let target = destinationOf({ target: source.destination, utmSource: source.utmSource, utmMedium: source.utmMedium, utmCampaign: source.utmCampaign });
  if (!isUri(target)) {
    // Spaces and letters outside ASCII, which browsers write percent-encoded anyway: the same address.
    const written = asciiForm(target);
    if (written !== undefined && isUri(written)) {
      notes.push(`Address written as ${written}.`);
      target = written;
    }
  }
  let title = source.title;
  if (title.length > bounds.titleMaxLength) {
    title = title.slice(0, bounds.titleMaxLength).trimEnd();
    notes.push(`Title shortened to ${bounds.titleMaxLength} characters.`);
  }
  const tags = tagsOf(source.tags);
  const alias = aliasOf(source.alias);
  return { body: { target, ...(title && { title }), ...(tags && { tags }), ...(alias && { alias }) }, notes };
}

function asciiForm(target: string): string | undefined {
  try {
    return new URL(target).href;
  } catch {
    return undefined;
  }
}

function targetProblem(target: string, hosts: { names: Set<string>; suffixes: string[] }): string | undefined {
  if (target === '') return 'There is no destination.';
  if (target.length > bounds.targetMaxLength) return `The destination is longer than ${formatCount(bounds.targetMaxLength)} characters.`;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return 'The destination is not a web address.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Only http:// and https:// addresses can be linked.';
  if (!isHostName(url.hostname)) return 'The destination is not a web address: its site name cannot hold spaces or such characters.';
  if (!isUri(target)) return 'The destination is not a web address (check for stray characters).';
  try {
    checkTarget(target, hosts);
  } catch {
    return url.username || url.password
      ? 'An address with a user name or password cannot be linked.'
      : 'The destination leads back to a short link of this service.';
  }
  return undefined;
}

function fieldProblem(source: SourceRow, body: RowBody): string | undefined {
  if (body.alias !== undefined && !ALIAS.test(body.alias)) {
    return `The alias ${body.alias} cannot be used: at most ${bounds.aliasMaxLength} letters, digits, - and _.`;
  }
  if ((body.tags?.length ?? 0) > bounds.tagsMaxLength) return `The tags are longer than ${bounds.tagsMaxLength} characters.`;
  if ([source.title, source.tags].some((text) => text.includes('\u0000'))) return 'A cell holds a NUL character.';
  return undefined;
}

/**
 * A version 8 UUID (RFC 9562) from SHA-256 of the import's id and the row's body: a retry, a reload or
 * a second click sends the same key for the same row, and the API makes its link once.
 */
export async function rowKey(importId: string, rowText: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${importId}\n${rowText}`)));
  const bytes = digest.slice(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
