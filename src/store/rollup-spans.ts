import { DAY_MS, utcDay } from '../domain/time.js';

/**
 * Span rollups: per link, dimension and value, the visits of 7 and of 28 consecutive UTC days, next to
 * the daily rows. Stats JSON sums every country, device and referrer over up to 90 days; from daily
 * rows alone that is 90 rows per value (23,000 for a busy link), and the scan costs more than the
 * 5 ms a stats read may take. With spans a 90-day window reads at most 10 rows per value (planWindow).
 * Spans start on multiples of their length counted in days since 1970-01-01, so a 28-day block is
 * exactly four 7-day ones.
 *
 * Contract with the write side (docs/decisions.md, "Stats reads"): every count added to a daily row
 * of a SPAN_DIMENSIONS dimension is added, in the same transaction, to the span row of each length
 * that contains its day; the analytics_state row SPANS_MARKER exists once every span row holds the sum
 * of its daily rows (existing rows back-filled) and every writer keeps it so. Until then stats read
 * daily rows only.
 */
export const SPAN_LENGTHS = [28, 7] as const;
export const SPAN_DIMENSIONS: readonly string[] = ['country', 'device', 'referrer'];
export const SPANS_MARKER = 'rollup_spans';

export interface VisitRollupSpanTable {
  link_id: string;
  dimension: string;
  /** Length in days: one of SPAN_LENGTHS. */
  span: number;
  /** First UTC day, 'YYYY-MM-DD'; its day number is a multiple of span. */
  start_day: string;
  value: string;
  count: number;
}

export type SpanTables = { visit_rollup_spans: VisitRollupSpanTable };

const dayNumber = (day: string): number => Date.parse(`${day}T00:00:00Z`) / DAY_MS;
const dayName = (n: number): string => utcDay(n * DAY_MS);

/** First day of the span of this length that contains the day. */
export const spanStart = (day: string, span: number): string => {
  const n = dayNumber(day);
  return dayName(n - (((n % span) + span) % span));
};

/**
 * How to sum [fromDay, toDay]: whole spans, plus or minus ranges of days read from daily rows (sign -1:
 * days inside a span read whole but outside the window, whose counts are taken back out).
 */
export interface WindowPlan {
  days: { from: string; to: string; sign: 1 | -1 }[];
  spans: { span: number; starts: string[] }[];
}

/**
 * The span holding the last day is read whole when it starts in the window: its days after the window
 * have not happened yet when the window ends today, so taking them back out reads nothing. Then, right
 * to left, the longest aligned spans that fit. The days left at the start (fewer than 7) are read
 * one by one, or as the week they end minus its days before the window when those are fewer.
 * 90 days take at most 10 reads of a day or a span, 6.9 on average (left to right: 12, and 11.2).
 */
export function planWindow(fromDay: string, toDay: string): WindowPlan {
  const from = dayNumber(fromDay);
  const to = dayNumber(toDay);
  const days: WindowPlan['days'] = [];
  const spans = new Map<number, string[]>();
  const addSpan = (span: number, start: number) => spans.set(span, [...(spans.get(span) ?? []), dayName(start)]);
  const addDays = (first: number, last: number, sign: 1 | -1) => days.push({ from: dayName(first), to: dayName(last), sign });
  let end = to + 1;
  const tail = SPAN_LENGTHS.find((span) => to - (to % span) >= from);
  if (tail !== undefined) {
    end = to - (to % tail);
    addSpan(tail, end);
    if (end + tail - 1 > to) addDays(to + 1, end + tail - 1, -1);
  }
  for (;;) {
    const span = SPAN_LENGTHS.find((length) => end % length === 0 && end - length >= from);
    if (span === undefined) break;
    end -= span;
    addSpan(span, end);
  }
  const left = end - from;
  const week = SPAN_LENGTHS.at(-1)!;
  if (left > 0 && end % week === 0 && week - left < left) {
    addSpan(week, end - week);
    addDays(end - week, from - 1, -1);
  } else if (left > 0) {
    addDays(from, end - 1, 1);
  }
  return { days, spans: [...spans].map(([span, starts]) => ({ span, starts })) };
}
