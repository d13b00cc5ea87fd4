import { DAY_MS, utcDay } from '../../platform/time.js';

/**
 * Span rollups: per link, the visits of each country, device and referrer over 7 and over 28
 * consecutive UTC days, next to the daily rows (one row per link and span, its counts as JSON since
 * migration 0008). Stats JSON sums every country, device and referrer over up to 90 days; from daily
 * rows alone that is 90 rows of all their values (23,000 counts for a busy link), more than the 5 ms
 * a stats read may take. With spans a 90-day window reads at most 9 rows (planWindow, readPlan).
 * Spans start on multiples of their length counted in days since 1970-01-01, so a 28-day block is
 * exactly four 7-day ones.
 *
 * Contract with the write side (docs/decisions.md, "Stats reads"): spans hold the daily counts of
 * SPAN_DIMENSIONS of every day up to the analytics_state row SPANS_THROUGH (a day number), and of no
 * later day. A roll-up pass adds a count of such a day to its span rows in the transaction that adds
 * it to the daily row; the days after it are added once they are over, a whole day in one transaction
 * that also moves SPANS_THROUGH (rollup.ts). The current day is then read from daily rows, and a busy
 * link's spans are written once a day instead of at every roll-up. Without the SPANS_THROUGH row
 * (written by the first roll-up of this version), spans hold every day. The row SPANS_MARKER exists
 * once all of this holds for rows written before migration 0007 (back-filled); until then stats read
 * daily rows only.
 */
export const SPAN_LENGTHS = [28, 7] as const;
export const SPAN_DIMENSIONS: readonly string[] = ['country', 'device', 'referrer'];
export const SPANS_MARKER = 'rollup_spans';
export const SPANS_THROUGH = 'spans_through';

/** One row per link and span (migration 0008). */
export interface VisitRollupSpanTable {
  link_id: string;
  /** Length in days: one of SPAN_LENGTHS. */
  span: number;
  /** First UTC day, 'YYYY-MM-DD'; its day number is a multiple of span. */
  start_day: string;
  /** JSON of the SPAN_DIMENSIONS' counts (rollup-counts.ts). */
  counts: string;
}

export type SpanTables = { visit_rollup_spans: VisitRollupSpanTable };

export const dayNumber = (day: string): number => Date.parse(`${day}T00:00:00Z`) / DAY_MS;
export const dayName = (n: number): string => utcDay(n * DAY_MS);

/** Every day of [fromDay, toDay], named ('YYYY-MM-DD'). */
export function daysBetween(fromDay: string, toDay: string): string[] {
  const days: string[] = [];
  for (let n = dayNumber(fromDay), last = dayNumber(toDay); n <= last; n++) days.push(dayName(n));
  return days;
}

/** First day of the span of this length that contains the day. */
export const spanStart = (day: string, span: number): string => {
  const n = dayNumber(day);
  return dayName(n - (((n % span) + span) % span));
};

/**
 * How to sum [fromDay, toDay]: ranges of days read from daily rows and spans read whole, each added
 * (sign 1) or taken back out (sign -1).
 */
export interface WindowPlan {
  days: { from: string; to: string; sign: 1 | -1 }[];
  spans: { span: number; starts: string[]; sign: 1 | -1 }[];
}

/** One read: `span` days from day `start` (a day of daily rows when span is 1), added or taken out. */
interface Part {
  start: number;
  span: number;
  sign: 1 | -1;
}

/**
 * The fewest reads that sum the window, as a shortest walk over midnights: from the first day's to
 * the one after the last, each step a day or an aligned span, forwards (added) or backwards (taken
 * out). Any such walk counts every day of the window once and every other day as often added as
 * taken out. Each step reads about the same (one row holding every value), except days after
 * the window: when it ends today they have no rows yet, so a span that runs past today is read whole
 * and its days to come taken out for nothing. 90 days take at most 8 reads, 6.3 on average.
 */
export function planWindow(fromDay: string, toDay: string): WindowPlan {
  const key = `${fromDay}|${toDay}`;
  let plan = plans.get(key);
  if (plan === undefined) {
    // Windows repeat (90 lengths, all ending today): a search costs about 0.1 ms, a lookup nothing.
    if (plans.size >= 1000) plans.clear();
    plans.set(key, (plan = shortestPlan(fromDay, toDay)));
  }
  return plan;
}

/** Plans are shared between reads: nobody changes one. */
const plans = new Map<string, WindowPlan>();

/**
 * How to sum [fromDay, toDay] when spans hold the days up to day number `through` only (undefined:
 * every day). Days after it are read from daily rows; of the days a plan takes back out of a span read
 * whole, only those up to `through` are in the span, so only those are taken out.
 */
export function readPlan(fromDay: string, toDay: string, through: number | undefined): WindowPlan {
  const last = dayNumber(toDay);
  if (through === undefined) return planWindow(fromDay, toDay);
  if (through < dayNumber(fromDay)) return { days: [{ from: fromDay, to: toDay, sign: 1 }], spans: [] };
  const spanned = planWindow(fromDay, dayName(Math.min(last, through)));
  const days = spanned.days.flatMap((d) => {
    if (d.sign > 0) return [d];
    if (dayNumber(d.from) > through) return [];
    return [{ ...d, to: dayName(Math.min(dayNumber(d.to), through)) }];
  });
  if (through < last) {
    // Read with the plan's last range when they touch: one read fewer.
    const touching = days.find((d) => d.sign > 0 && dayNumber(d.to) === through);
    if (touching) days[days.indexOf(touching)] = { ...touching, to: toDay };
    else days.push({ from: dayName(through + 1), to: toDay, sign: 1 });
  }
  return { days, spans: spanned.spans };
}

function shortestPlan(fromDay: string, toDay: string): WindowPlan {
  const first = dayNumber(fromDay);
  const last = dayNumber(toDay);
  // Walks stay within two of the longest spans around the window; positions are offsets from `low`.
  const low = first - 2 * SPAN_LENGTHS[0];
  const size = last + 1 + 2 * SPAN_LENGTHS[0] - low;
  const cost = new Array<number>(size + 1).fill(Infinity);
  const via = new Array<{ from: number; part: Part } | undefined>(size + 1);
  // 0-1 breadth-first search: free steps go to the front of the queue, reads to the back.
  const queue = [first];
  cost[first - low] = 0;
  while (queue.length > 0) {
    const p = queue.shift()!;
    for (const part of stepsFrom(p)) {
      const q = part.sign > 0 ? part.start + part.span : part.start;
      if (q < low || q > low + size) continue;
      const price = part.span === 1 && part.start > last ? 0 : 1;
      if (cost[p - low]! + price >= cost[q - low]!) continue;
      cost[q - low] = cost[p - low]! + price;
      via[q - low] = { from: p, part };
      if (price === 0) queue.unshift(q);
      else queue.push(q);
    }
  }
  const parts: Part[] = [];
  for (let p = last + 1; p !== first; p = via[p - low]!.from) parts.unshift(via[p - low]!.part);
  return toPlan(parts);
}

function stepsFrom(p: number): Part[] {
  const steps: Part[] = [
    { start: p, span: 1, sign: 1 },
    { start: p - 1, span: 1, sign: -1 },
  ];
  for (const span of SPAN_LENGTHS) {
    if (p % span === 0) steps.push({ start: p, span, sign: 1 }, { start: p - span, span, sign: -1 });
  }
  return steps;
}

/** Adjacent days of one sign become one range; spans are grouped by length and sign. */
function toPlan(parts: Part[]): WindowPlan {
  const plan: WindowPlan = { days: [], spans: [] };
  const days = parts.filter((p) => p.span === 1).sort((a, b) => a.sign - b.sign || a.start - b.start);
  for (const [i, d] of days.entries()) {
    const previous = days[i - 1];
    if (previous && previous.sign === d.sign && previous.start === d.start - 1) plan.days.at(-1)!.to = dayName(d.start);
    else plan.days.push({ from: dayName(d.start), to: dayName(d.start), sign: d.sign });
  }
  for (const p of parts.filter((part) => part.span > 1)) {
    const group = plan.spans.find((s) => s.span === p.span && s.sign === p.sign);
    if (group) group.starts.push(dayName(p.start));
    else plan.spans.push({ span: p.span, starts: [dayName(p.start)], sign: p.sign });
  }
  return plan;
}
