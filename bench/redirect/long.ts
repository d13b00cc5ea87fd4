import { measure, type Figures } from './load.js';
import { freeze, stop, thaw, type Server } from './processes.js';

/**
 * The long mode's phases (BENCH_LONG=1). Side by side: two servers on the server core at once, each
 * loaded by its own load generator, so both get about half of the same core in the same seconds and
 * the machine's drift, which interleaved rounds only average out, hits both alike. Fresh pairs: new
 * processes for each pair, since V8 compiles each process's hot code its own way and keeps it for
 * the process's life, so one long-lived pair is one draw.
 */

const pct = (ratio: number) => (100 * ratio).toFixed(1);
/** The median. */
export function middle(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
}

interface Paired {
  figures: Figures[];
  /** Each server's share of the core (CPU time / wall time): about 0.5 each when both were busy throughout. */
  shares: number[];
}

/** Both servers thawed and loaded at once for `seconds`, then frozen again. */
async function sideBySide(pair: [Server, Server], slugFile: string, seconds: number): Promise<Paired> {
  await thaw(pair);
  const started = Date.now();
  const figures = await measure(pair, slugFile, seconds);
  const wall = Date.now() - started;
  for (const server of pair) freeze(server);
  return { figures, shares: figures.map((f) => (f.cpuUs * f.requests) / 1000 / wall) };
}

/** `runs` side-by-side runs of each pair, in turn; one line per pair: the second server against the first. */
export async function sideBySidePhase(pairs: [Server, Server][], slugFile: string, runs: number, seconds: number): Promise<string[]> {
  const results = pairs.map((): Paired[] => []);
  for (let run = 0; run < runs; run++) {
    for (const [i, pair] of pairs.entries()) results[i]!.push(await sideBySide(pair, slugFile, seconds));
  }
  return pairs.map(([a, b], i) => {
    const byRps = results[i]!.map((p) => p.figures[1]!.rps / p.figures[0]!.rps);
    const shares = results[i]!.map((p) => p.shares.map((s) => s.toFixed(2)).join('/')).join(', ');
    return `side by side, ${b.name} / ${a.name}: ${pct(middle(byRps))}% by requests/s (median of ${runs} runs of ${seconds} s: ${byRps.map(pct).join(', ')}%; core shares ${shares})`;
  });
}

/** The other side of a fresh pair (bare Node, or the baseline build), started anew for pair `index`. */
export interface Rival {
  name: string;
  start: (index: number) => Promise<Server>;
}

/**
 * `pairs` pairs of new processes, the rival and the service, each side by side for a first run that
 * is not counted and then `runs` runs. Reports the service against the rival: the median of all runs
 * and the ratio of requests over all runs (which counts the runs that hold a roll-up).
 */
export async function freshPairs(
  rival: Rival,
  service: (index: number) => Promise<Server>,
  slugFile: string,
  options: { pairs: number; runs: number; seconds: number },
): Promise<string> {
  const ratios: number[][] = [];
  let rivalRequests = 0;
  let serviceRequests = 0;
  for (let index = 0; index < options.pairs; index++) {
    const pair: [Server, Server] = [await rival.start(index), await service(index)];
    await sideBySide(pair, slugFile, options.seconds);
    const runs: number[] = [];
    for (let run = 0; run < options.runs; run++) {
      const { figures } = await sideBySide(pair, slugFile, options.seconds);
      runs.push(figures[1]!.rps / figures[0]!.rps);
      rivalRequests += figures[0]!.requests;
      serviceRequests += figures[1]!.requests;
    }
    ratios.push(runs);
    for (const server of pair) await stop(server.child);
  }
  return (
    `fresh pairs, service / ${rival.name} (${options.pairs} pairs, ${options.runs} runs of ${options.seconds} s each): ` +
    `${pct(middle(ratios.flat()))}% by requests/s (median of runs), ${pct(serviceRequests / rivalRequests)}% over all runs; ` +
    `per pair ${ratios.map((runs) => pct(middle(runs))).join(', ')}%`
  );
}
