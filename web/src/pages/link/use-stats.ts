import type { Static } from '@sinclair/typebox';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Stats as StatsSchema } from '../../../../src/analytics/stats-schemas.js';
import { api, ApiError } from '../../api/client.js';

export type Stats = Static<typeof StatsSchema>;
export type StatsGap = Stats['gaps'][number];

/** How often the open page asks again: analytics are fresh within about two seconds. */
export const REFRESH_MS = 10_000;

const FINAL = [401, 403, 404, 410];

/** What the page shows: every chart, table, figure and the CSV follow these. */
export interface StatsFilters {
  days: number;
  source: 'both' | 's' | 'q';
  bots: boolean;
  tz: string;
}

/** The API's query for the filters (the CSV adds `format=csv`). */
export function statsQuery(filters: StatsFilters): string {
  const query = new URLSearchParams({ days: String(filters.days), bots: filters.bots ? 'include' : 'exclude', tz: filters.tz });
  if (filters.source !== 'both') query.set('source', filters.source);
  return query.toString();
}

export interface LiveStats {
  stats?: Stats;
  error: unknown;
  loading: boolean;
}

/**
 * A link's stats as the filters ask, asked again every ten seconds while the tab is visible
 * (at once when it becomes visible again); a hidden tab asks nothing. The latest answer wins.
 */
export function useStats(linkId: string, filters: StatsFilters, trialToken?: string): LiveStats {
  const query = statsQuery(filters);
  const [state, setState] = useState<LiveStats>({ error: null, loading: true });
  const ticket = useRef(0);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const abort = new AbortController();
    const load = async () => {
      clearTimeout(timer);
      const mine = ++ticket.current;
      setState((s) => ({ ...s, loading: true }));
      try {
        const stats = await api<Stats>('GET', `/links/${encodeURIComponent(linkId)}/stats?${query}`, undefined, { trialToken, signal: abort.signal });
        if (mine === ticket.current) setState({ stats, error: null, loading: false });
      } catch (error) {
        if (!abort.signal.aborted && mine === ticket.current) setState((s) => ({ ...s, error, loading: false }));
        // An expired trial, a link that is gone or a refusal stays so: asking again changes nothing.
        if (error instanceof ApiError && FINAL.includes(error.status)) return;
      }
      if (abort.signal.aborted || mine !== ticket.current || document.visibilityState !== 'visible') return;
      clearTimeout(timer);
      timer = setTimeout(() => void load(), REFRESH_MS);
    };
    const onVisibility = () => {
      if (document.visibilityState === 'visible') void load();
      else clearTimeout(timer);
    };
    document.addEventListener('visibilitychange', onVisibility);
    void load();
    return () => {
      abort.abort();
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [linkId, query, trialToken]);
  return state;
}

/** Seconds since `at`, counted up every second while mounted. */
export function useSecondsSince(at: number | undefined): number | undefined {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return at === undefined ? undefined : Math.max(0, Math.round((now - at) / 1000));
}
