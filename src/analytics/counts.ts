import { DAY_MS, utcDay } from '../platform/time.js';
import type { GapReason, Shortfall, Source, Visit } from './ports.js';

/**
 * The counting model, read top to bottom: every recorded visit adds one to a count per link, UTC day,
 * dimension and value, in one of four columns (through /s/ or /q/, by a person or a bot). `time` is
 * the visit's UTC quarter hour, so that days and hours follow any time zone. A new breakdown is a name
 * here and a value per visit.
 */
export const DIMENSIONS = ['time', 'country', 'device', 'browser', 'os', 'referrer'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Trial links' group: they belong to no account, and only the daily ceiling bounds them. */
export const TRIAL_GROUP = '~trial';

/** The column a visit counts in: 0 /s/, 1 /q/, 2 bots through /s/, 3 bots through /q/. */
export const column = (source: Source, bot: boolean): number => (source === 'q' ? 1 : 0) + (bot ? 2 : 0);

/** The UTC day of a visit, remembered for the last day asked: a flush's visits fall on one or two. */
let lastDay = { number: NaN, day: '' };
export function dayOf(time: number): string {
  const number = Math.floor(time / DAY_MS);
  if (number !== lastDay.number) lastDay = { number, day: utcDay(time) };
  return lastDay.day;
}

const QUARTER_MS = 900_000;
/** `HH:MM` of the UTC quarter hour holding `time`. */
export const quarterOf = (time: number): string => new Date(time - (time % QUARTER_MS)).toISOString().slice(11, 16);

/** Rows to add: [link, day, dimension, value, s, q, s_bot, q_bot], sorted (every flush writes in one order). */
export type CountRowValues = [string, string, string, string, number, number, number, number];

/**
 * A flush's rows to add. Built per link, then sorted per link: sorting the links and each link's few
 * keys costs far less than sorting every key of a flush as one list. A visit's day and quarter hour are
 * worked out once per quarter hour of the flush.
 */
export function countRows(visits: Visit[]): CountRowValues[] {
  const byLink = new Map<string, Map<string, CountRowValues>>();
  const slots = new Map<number, [day: string, quarter: string]>();
  for (const visit of visits) {
    const at = 4 + column(visit.source, visit.agent.bot);
    const slot = Math.floor(visit.time / QUARTER_MS);
    let time = slots.get(slot);
    if (time === undefined) slots.set(slot, (time = [dayOf(visit.time), quarterOf(visit.time)]));
    let rows = byLink.get(visit.link.id);
    if (rows === undefined) byLink.set(visit.link.id, (rows = new Map<string, CountRowValues>()));
    const { agent } = visit;
    const values: [Dimension, string][] = [
      ['time', time[1]],
      ['country', visit.country],
      ['device', agent.device],
      ['browser', agent.browser],
      ['os', agent.os],
      ['referrer', visit.referrer],
    ];
    for (const [dimension, value] of values) {
      const key = `${time[0]}\t${dimension}\t${value}`;
      let row = rows.get(key);
      if (row === undefined) rows.set(key, (row = [visit.link.id, time[0], dimension, value, 0, 0, 0, 0]));
      row[at] = (row[at] as number) + 1;
    }
  }
  const sorted = <T>(map: Map<string, T>) => [...map].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, v]) => v);
  return sorted(byLink).flatMap((rows) => sorted(rows));
}

/** Visitor codes to add to the sketches, per link, day, source and class (`link\tday\tsource\tbot`), sorted. */
export function visitorCodes(visits: Visit[]): [string, number[]][] {
  const codes = new Map<string, number[]>();
  for (const visit of visits) {
    const key = `${visit.link.id}\t${dayOf(visit.time)}\t${visit.source}\t${visit.agent.bot ? 1 : 0}`;
    const list = codes.get(key);
    if (list === undefined) codes.set(key, [visit.visitor]);
    else list.push(visit.visitor);
  }
  return [...codes].sort(([a], [b]) => (a < b ? -1 : 1));
}

/** What a batch asks of each UTC day: people's visits per account (ascending: the lock order), and bots. */
export interface DayDemand {
  accounts: Map<string, number>;
  bots: number;
}

export function demand(visits: Visit[]): Map<string, DayDemand> {
  const days = new Map<string, DayDemand>();
  for (const visit of visits) {
    const day = dayOf(visit.time);
    let want = days.get(day);
    if (want === undefined) days.set(day, (want = { accounts: new Map(), bots: 0 }));
    if (visit.agent.bot) want.bots++;
    else {
      const account = visit.link.accountId ?? TRIAL_GROUP;
      want.accounts.set(account, (want.accounts.get(account) ?? 0) + 1);
    }
  }
  const sorted = (map: Map<string, number>) => new Map([...map].sort(([a], [b]) => (a < b ? -1 : 1)));
  return new Map([...days].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, want]) => [day, { ...want, accounts: sorted(want.accounts) }]));
}

/** What a day granted: visits per account, bot visits, and why an account got fewer than it asked. */
export interface DayGrant {
  accounts: Map<string, number>;
  reasons: Map<string, GapReason>;
  bots: number;
}

/**
 * Which visits are recorded: each account's first visits in the order they arrived, as many as it
 * was granted, and the day's first bot visits; the rest are refused, per link and reason.
 */
export function choose(visits: Visit[], grants: Map<string, DayGrant>, now: number): { recorded: Visit[]; refused: Shortfall[] } {
  const left = new Map<string, number>();
  const recorded: Visit[] = [];
  const refused = new Map<string, Shortfall>();
  for (const visit of visits) {
    const day = dayOf(visit.time);
    const grant = grants.get(day)!;
    const account = visit.agent.bot ? '' : (visit.link.accountId ?? TRIAL_GROUP);
    const key = `${day}\t${account}`;
    const granted = left.get(key) ?? (visit.agent.bot ? grant.bots : (grant.accounts.get(account) ?? 0));
    left.set(key, granted - 1);
    if (granted > 0) {
      recorded.push(visit);
      continue;
    }
    const reason = visit.agent.bot ? 'bot_ceiling_reached' : grant.reasons.get(account)!;
    addShortfall(refused, { linkId: visit.link.id, reason, count: 1, from: visit.time, to: now });
  }
  return { recorded, refused: [...refused.values()] };
}

/** Adds visits not recorded to `into`, one entry per link and reason: counts add up, the span widens. */
export function addShortfall(into: Map<string, Shortfall>, s: Shortfall): void {
  const key = `${s.linkId ?? ''}|${s.reason}`;
  const known = into.get(key);
  if (known === undefined) return void into.set(key, { ...s });
  known.count += s.count;
  known.from = Math.min(known.from, s.from);
  known.to = Math.max(known.to, s.to);
}
