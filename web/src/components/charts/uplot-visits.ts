import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { dayStart } from './utc-days.js';

export interface ChartDay {
  date: string;
  s: number;
  q: number;
}
export interface ChartGap {
  from: number;
  to: number;
}

const HEIGHT = 260;
const dayLabel = uPlot.fmtDate('{D} {MMM}');

/**
 * Daily visits as two series (short link solid, QR dashed) on UTC days, with every gap in recording
 * shaded across the part of the chart it covers. Colours come from the page's CSS, so dark mode follows.
 */
export function drawVisitsChart(target: HTMLElement, days: ChartDay[], gaps: ChartGap[]): { destroy: () => void } {
  const css = getComputedStyle(target);
  const colour = (name: string) => css.getPropertyValue(name).trim();
  const axis = { stroke: colour('--text'), grid: { stroke: colour('--chart-grid'), width: 1 }, ticks: { stroke: colour('--chart-grid'), width: 1 } };
  const lastDay = dayStart(days.at(-1)?.date ?? '1970-01-01');
  const data: uPlot.AlignedData = [days.map((d) => dayStart(d.date)), days.map((d) => d.s), days.map((d) => d.q)];
  const plot = new uPlot(
    {
      width: Math.max(240, target.clientWidth),
      height: HEIGHT,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      legend: { show: false },
      cursor: { show: false },
      // The last day's whole span is shown, so a gap later today still has its place on the chart.
      scales: { x: { time: true, range: (_u, min, max) => [min, max + 86_400] }, y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
      axes: [
        // The last day's span ends at tomorrow's midnight, which is not a day of the window: no label there.
        { ...axis, values: (_u, splits) => splits.map((t) => (t <= lastDay ? dayLabel(uPlot.tzDate(new Date(t * 1000), 'Etc/UTC')) : '')) },
        { ...axis, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000], size: 50 },
      ],
      series: [
        {},
        { label: 'Short link', stroke: colour('--series-s'), width: 2, points: { show: days.length <= 31, size: 6, fill: colour('--series-s') } },
        { label: 'QR code', stroke: colour('--series-q'), width: 2, dash: [6, 4], points: { show: days.length <= 31, size: 6, fill: colour('--series-q') } },
      ],
      hooks: { drawClear: [(u) => shadeGaps(u, gaps, colour('--chart-gap'))] },
    },
    data,
    target,
  );
  const observer = new ResizeObserver(() => plot.setSize({ width: Math.max(240, target.clientWidth), height: HEIGHT }));
  observer.observe(target);
  return {
    destroy() {
      observer.disconnect();
      plot.destroy();
    },
  };
}

/** Each gap as a band over the plotting area, at least five pixels wide so a short one stays visible. */
function shadeGaps(u: uPlot, gaps: ChartGap[], fill: string): void {
  const { left, top, width, height } = u.bbox;
  const ctx = u.ctx;
  ctx.save();
  ctx.fillStyle = fill;
  for (const gap of gaps) {
    const x0 = Math.max(left, u.valToPos(gap.from / 1000, 'x', true));
    const x1 = Math.min(left + width, u.valToPos(gap.to / 1000, 'x', true));
    if (x1 < left || x0 > left + width) continue;
    ctx.fillRect(x0, top, Math.max(5 * devicePixelRatio, x1 - x0), height);
  }
  ctx.restore();
}
