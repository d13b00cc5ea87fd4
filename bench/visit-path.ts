/**
 * npm run bench:visit — what recording a visit costs the event loop, per redirect, without HTTP: its
 * country from the edge header (country.ts), its class and referrer from the classifier's caches
 * (classify.ts) and its count in memory (visits.ts), as the analytics sink (analytics-setup.ts) runs
 * them. A round is 800 batches of 64 requests (the redirect benchmark's connections) with its header
 * mix (redirect/traffic.ts): each batch's header objects hold fresh strings, as node's parser hands
 * them over (no string's hash is known yet), then the pass over them is timed; a round's visits go
 * into one buffer on 10,000 links. Pin it to a core (`taskset -c 1 npm run bench:visit`): unpinned,
 * rounds spread by half.
 *
 * Reference in the same run: a lookup of the request's slug in a Map of 10,000 links, the one thing
 * the bare-Node baseline of the redirect benchmark does per request besides HTTP.
 */
import crypto from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { VisitClassifier } from '../src/analytics/classify.js';
import { countryOf } from '../src/analytics/country.js';
import type { LinkRef } from '../src/analytics/ports.js';
import { PendingVisits } from '../src/analytics/visits.js';
import { COUNTRIES, REFERRERS, USER_AGENTS } from './redirect/traffic.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const LINKS = 10_000;
const BATCH = 64;
const BATCHES = 800;
const REQUESTS = BATCH * BATCHES;

interface Request {
  headers: IncomingHttpHeaders;
  slug: string;
}

/** A copy of the text as node's parser makes one: a new flat string. */
const fresh = (text: string): string => Buffer.from(text, 'latin1').toString('latin1');
const pick = <T>(list: readonly T[], i: number): T => list[i % list.length]!;

function batch(slugs: string[]): Request[] {
  return Array.from({ length: BATCH }, () => {
    const r = crypto.randomInt(1 << 30);
    const referrer = pick(REFERRERS, r >> 4);
    const headers: IncomingHttpHeaders = { host: fresh('127.0.0.1:3902'), 'user-agent': fresh(pick(USER_AGENTS, r)) };
    if (referrer !== '') headers.referer = fresh(referrer);
    headers['cf-ipcountry'] = fresh(pick(COUNTRIES, r >> 8));
    return { headers, slug: fresh(pick(slugs, r >> 12)) };
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const slugs = Array.from({ length: LINKS }, () => crypto.randomBytes(6).toString('base64url'));
const targets = new Map(slugs.map((slug) => [slug, `https://example.org/landing/${slug}`]));
const links: LinkRef[] = slugs.map(() => ({ id: crypto.randomUUID(), accountId: crypto.randomUUID() }));
const classifier = new VisitClassifier();
const country = countryOf('cf-ipcountry');
let pending = new PendingVisits();
let n = 0;
/** What the analytics sink does with one redirect's headers. */
const record = (headers: IncomingHttpHeaders) => {
  const edge = headers['cf-ipcountry'];
  const visitor = classifier.userAgent(headers['user-agent']);
  pending.add(
    links[n++ % LINKS]!,
    n & 1 ? 'q' : 's',
    country(typeof edge === 'string' ? edge : undefined, '127.0.0.1'),
    visitor,
    classifier.referrer(headers.referer),
    0,
  );
};

const REFERENCE = 'slug lookup in a Map (reference)';
const PATH = 'the visit path';
const times = new Map<string, number[]>([
  [REFERENCE, []],
  [PATH, []],
]);
let found = 0;
const timed = (work: () => void): bigint => {
  const start = process.hrtime.bigint();
  work();
  return process.hrtime.bigint() - start;
};
for (let round = -5; round < ROUNDS; round++) {
  let reference = 0n;
  let visits = 0n;
  pending = new PendingVisits();
  for (let b = 0; b < BATCHES; b++) {
    // Fresh strings for every measurement: a string's hash is computed once, on its first lookup.
    const requests = batch(slugs);
    reference += timed(() => {
      for (const request of requests) if (targets.get(request.slug) !== undefined) found++;
    });
    const again = batch(slugs);
    visits += timed(() => {
      for (const request of again) record(request.headers);
    });
  }
  if (round >= 0) {
    times.get(REFERENCE)!.push(Number(reference) / REQUESTS);
    times.get(PATH)!.push(Number(visits) / REQUESTS);
  }
}
console.log(`${ROUNDS} rounds of ${REQUESTS} requests in batches of ${BATCH} (after 5 warm-up rounds); ns per request, median (min–max); ${found} slugs found`);
console.log('| what | ns per request |');
console.log('|---|---|');
for (const [name, xs] of times) console.log(`| ${name} | ${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}) |`);
