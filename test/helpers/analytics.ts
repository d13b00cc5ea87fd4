import { DIMENSIONS } from '../../src/analytics/counts.js';
import { KyselyStatsStore } from '../../src/analytics/store/stats-store.js';
import { KyselyRecordingStore } from '../../src/analytics/store/recording-store.js';
import { KyselyUsageStore } from '../../src/billing/usage-store.js';
import { KyselyVisitAllowance } from '../../src/billing/visit-allowance.js';
import type { LinkDay } from '../../src/analytics/ports.js';
import type { Database } from '../../src/platform/database/database.js';
import type { Harness } from './harness.js';

/** Browser-like user agents of each device class, and a crawler. */
export const UA = {
  iphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  windows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
};

/** The recording store as the app builds it, on `database`, taking from billing's allowance there. */
export const recordingStore = (database: Database) => new KyselyRecordingStore(database, new KyselyVisitAllowance(database));

/** An account's recorded visits of a month as the usage endpoint reports them, with `free` visits a month. */
export async function recordingOf(database: Database, accountId: string, month: string, free: number) {
  const visits = await new KyselyUsageStore(database.db).visitMonth(accountId, month);
  return { recordedThisMonth: visits.recorded, freeLeft: Math.max(0, free - visits.freeUsed), packsLeft: visits.packsLeft };
}

/** A fresh account with one active link; returns what a test needs to drive and read it. */
export async function linkWithKey(h: Harness, env: { title?: string } = {}) {
  const { key, accountId } = await h.account();
  const res = await h.createLink({ target: 'https://example.org/landing', title: env.title ?? 'poster' }, { key });
  if (res.status !== 200) throw new Error(`link creation failed: ${res.status} ${res.text}`);
  return { key, accountId, id: res.body.id as string, slug: res.body.slug as string };
}

/** n redirects in parallel through /s/ (or /q/), with the given headers: a person's phone unless they name another user agent. */
export async function visit(h: Harness, slug: string, n: number, options: { path?: 's' | 'q'; headers?: Record<string, string>; method?: string } = {}) {
  const headers = { 'user-agent': UA.iphone, ...options.headers };
  const results = await Promise.all(Array.from({ length: n }, () => h.request(options.method ?? 'GET', `/${options.path ?? 's'}/${slug}`, { headers })));
  for (const r of results) if (r.status !== 302) throw new Error(`redirect answered ${r.status}`);
}

export async function stats(h: Harness, id: string, key: string, query = '') {
  await h.app.visitRecorder.flush();
  const res = await h.request('GET', `/links/${id}/stats${query}`, { key });
  if (res.status !== 200) throw new Error(`stats answered ${res.status} ${res.text}`);
  return res.body;
}

/** A day's quarter hours that hold any visit: `HH:MM` and the four columns. */
export const quarterRows = (day: LinkDay) =>
  Array.from({ length: 96 }, (_, q) => ({
    value: `${String(Math.floor(q / 4)).padStart(2, '0')}:${String(15 * (q % 4)).padStart(2, '0')}`,
    n: [...day.quarters.subarray(4 * q, 4 * q + 4)],
  })).filter((row) => row.n.some((n) => n > 0));

/** A dimension's counts in their stored form as lists [value, s, q, s_bot, q_bot]. */
export const flatRows = (list: readonly (string | number)[]) =>
  Array.from({ length: list.length / 5 }, (_, i) => list.slice(5 * i, 5 * i + 5) as [string, number, number, number, number]);

/** A link's stored counts of its UTC days [fromDay, toDay], every writer's added up, as rows: one per day, dimension and value. */
export async function storedCounts(database: Database, linkId: string, fromDay = '2000-01-01', toDay = '2100-01-01') {
  const days = (await new KyselyStatsStore(database).linkDays([linkId], fromDay, toDay)).get(linkId)!;
  return days.flatMap((day) => [
    ...quarterRows(day).map((row) => ({ day: day.day, dimension: 'time', ...row })),
    ...DIMENSIONS.flatMap((dimension, d) => flatRows(day.counts[d]!).map(([value, ...n]) => ({ day: day.day, dimension, value, n }))),
  ]);
}

/** Another instance's row, heard from at `now` and listing `writer`: none (null) for an instance from before writers were listed. */
export async function instanceRow(database: Database, id: string, now: number, writer: string | null = null): Promise<void> {
  await database.db.insertInto('recorder_instances').values({ id, started_at: now, beat_at: now, flushed_to: now, writer }).execute();
}
