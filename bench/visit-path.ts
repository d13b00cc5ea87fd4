/**
 * npm run bench:visit — what recording a visit costs the event loop, per redirect, without HTTP: the
 * visit's headers read from the raw list (http/visit-headers.ts), its country from the edge header
 * (http/country.ts), its class and referrer from the classifier's caches (domain/analytics/
 * classify.ts) and the append to the day's buffer (day-visits.ts), as `record` runs them. A round
 * is 800 batches of 64 requests (the redirect benchmark's connections) with its header mix
 * (redirect/traffic.ts): each batch's raw header lists are made as fresh strings, as node's parser
 * hands them over (no string's hash is known yet, and they are in the cache, as a request just
 * parsed), then the pass over them is timed; a round's visits go into one day buffer on 10,000 links.
 * Pin it to a core (`taskset -c 1 npm run bench:visit`): unpinned, rounds spread by half.
 *
 * Reference in the same run: a lookup of the request's slug in a Map of 10,000 links, the one thing
 * the bare-Node baseline of the redirect benchmark does per request besides HTTP. With
 * BENCH_BASELINE_SRC naming the `src/` of another checkout (a git worktree inside this one, so that
 * its imports find node_modules), that code's visit path runs in the same rounds too.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import type { LinkRef } from '../src/analytics/link-table.js';
import { COUNTRIES, REFERRERS, USER_AGENTS } from './redirect/traffic.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const LINKS = 10_000;

const BATCH = 64;
const BATCHES = 800;
const REQUESTS = BATCH * BATCHES;

/** One build's visit path, from its own modules, for one batch of requests into `day`. */
async function visitPath(src: string) {
  const load = (file: string) => import(path.join(src, file));
  const { visitHeaders } = await load('http/visit-headers.ts');
  const { countryOf } = await load('http/country.ts');
  const { VisitClassifier } = await load('domain/analytics/classify.ts');
  const { DayVisits } = await load('domain/analytics/day-visits.ts');
  const { LinkTable } = await load('domain/analytics/link-table.ts');
  const classifier = new VisitClassifier();
  const country = countryOf('cf-ipcountry');
  const table = new LinkTable();
  let day = new DayVisits('2026-11-22', 0, REQUESTS, table);
  let n = 0;
  return {
    newDay: () => (day = new DayVisits('2026-11-22', 0, REQUESTS, table)),
    batch: (requests: Request[], links: LinkRef[]): void => {
      for (const request of requests) {
        const headers = visitHeaders(request.headers, 'cf-ipcountry');
        day.addLink(links[n++ % links.length], n & 1 ? 'q' : 's', country(headers.country, '127.0.0.1'), classifier.userAgent(headers.userAgent), classifier.referrer(headers.referer));
      }
    },
  };
}

interface Request {
  headers: string[];
  slug: string;
}

/** A copy of the text as node's parser makes one: a new flat string. */
const fresh = (text: string): string => Buffer.from(text, 'latin1').toString('latin1');
const pick = <T>(list: readonly T[], i: number): T => list[i % list.length]!;

function batch(slugs: string[]): Request[] {
  return Array.from({ length: BATCH }, () => {
    const r = crypto.randomInt(1 << 30);
    const referrer = pick(REFERRERS, r >> 4);
    const headers = ['Host', fresh('127.0.0.1:3902'), 'User-Agent', fresh(pick(USER_AGENTS, r))];
    if (referrer !== '') headers.push('Referer', fresh(referrer));
    headers.push('CF-IPCountry', fresh(pick(COUNTRIES, r >> 8)));
    return { headers, slug: fresh(pick(slugs, r >> 12)) };
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const slugs = Array.from({ length: LINKS }, () => crypto.randomBytes(6).toString('base64url'));
const targets = new Map(slugs.map((slug) => [slug, `https://example.org/landing/${slug}`]));
const links: LinkRef[] = slugs.map(() => ({ id: crypto.randomUUID(), accountId: crypto.randomUUID(), table: 0, index: -1 }));
const paths: [string, Awaited<ReturnType<typeof visitPath>>][] = [['this checkout', await visitPath(path.join(import.meta.dirname, '../src'))]];
if (process.env.BENCH_BASELINE_SRC) paths.push([`baseline (${process.env.BENCH_BASELINE_SRC})`, await visitPath(path.resolve(process.env.BENCH_BASELINE_SRC))]);
const REFERENCE = 'slug lookup in a Map (reference)';
const times = new Map<string, number[]>([[REFERENCE, []], ...paths.map(([name]): [string, number[]] => [name, []])]);
let found = 0;
const timed = (work: () => void): bigint => {
  const start = process.hrtime.bigint();
  work();
  return process.hrtime.bigint() - start;
};
for (let round = -5; round < ROUNDS; round++) {
  const spent = new Map<string, bigint>([...times.keys()].map((name) => [name, 0n]));
  for (const [, visit] of paths) visit.newDay();
  for (let b = 0; b < BATCHES; b++) {
    // Fresh strings for every measurement: a string's hash is computed once, on its first lookup.
    const requests = batch(slugs);
    spent.set(REFERENCE, spent.get(REFERENCE)! + timed(() => {
      for (const request of requests) if (targets.get(request.slug) !== undefined) found++;
    }));
    for (const [name, visit] of paths) {
      const again = batch(slugs);
      spent.set(name, spent.get(name)! + timed(() => visit.batch(again, links)));
    }
  }
  if (round >= 0) for (const [name, ns] of spent) times.get(name)!.push(Number(ns) / REQUESTS);
}
console.log(`${ROUNDS} rounds of ${REQUESTS} requests in batches of ${BATCH} (after 5 warm-up rounds); ns per request, median (min–max); ${found} slugs found`);
console.log('| what | ns per request |');
console.log('|---|---|');
for (const [name, xs] of times) console.log(`| ${name} | ${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}) |`);
