import type { ComponentChildren } from 'preact';
import { useMemo } from 'preact/hooks';
import { zoneNames } from '../../components/charts/wall-clock.js';
import type { StatsFilters } from './use-stats.js';

const PERIODS = [7, 30, 90] as const;
const SOURCES = [
  ['both', 'Both'],
  ['s', 'Short link'],
  ['q', 'QR code'],
] as const;

interface ControlsProps {
  /** Unique per section: the radio groups' names. */
  name: string;
  filters: StatsFilters;
  onChange: (filters: StatsFilters) => void;
  /** The actions beside the filters (the CSV download). */
  children: ComponentChildren;
}

/** The filters every figure of the section follows: period, way in, bots and time zone. */
export function AnalyticsControls({ name, filters, onChange, children }: ControlsProps) {
  const zones = useMemo(zoneNames, []);
  const set = (change: Partial<StatsFilters>) => onChange({ ...filters, ...change });
  return (
    <div class="analytics-bar">
      <fieldset class="periods">
        <legend>Period</legend>
        {PERIODS.map((n) => (
          <label key={n} class="period">
            <input type="radio" name={`${name}-period`} value={n} checked={filters.days === n} onChange={() => set({ days: n })} /> {n} days
          </label>
        ))}
      </fieldset>
      <fieldset class="periods">
        <legend>Visits through</legend>
        {SOURCES.map(([value, label]) => (
          <label key={value} class="period">
            <input type="radio" name={`${name}-source`} value={value} checked={filters.source === value} onChange={() => set({ source: value })} /> {label}
          </label>
        ))}
      </fieldset>
      <div class="analytics-options">
        <label class="period">
          <input type="checkbox" checked={filters.bots} onChange={(event) => set({ bots: event.currentTarget.checked })} /> Include bots
        </label>
        <label class="zone">
          Time zone
          <select value={filters.tz} onChange={(event) => set({ tz: event.currentTarget.value })}>
            {zones.map((zone) => (
              <option key={zone} value={zone}>
                {zone}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div class="actions">{children}</div>
    </div>
  );
}
