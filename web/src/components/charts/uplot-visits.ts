import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { lineStyle } from './line-styles.js';

/** One bar of the chart: its start on the zone's wall clock (see wall-clock.ts) and its visits. */
export interface ChartBucket {
  at: number;
  s: number;
  q: number;
}
/** A period in which visits were not recorded, in wall-clock seconds. */
export interface ChartGap {
  from: number;
  to: number;
}
export interface ChartSpec {
  buckets: ChartBucket[];
  /** Seconds each bucket covers: 3,600 (hours) or 86,400 (days). */
  span: number;
  /** `both` stacks the QR code's visits under the short link's; `all` draws every visit as one series (hours carry no split by source). */
  show: 'both' | 'all' | 's' | 'q';
  gaps: ChartGap[];
}

/** The links of a campaign, one line each, over the same buckets. */
export interface LinesSpec {
  /** The start of each bucket on the zone's wall clock. */
  starts: number[];
  span: number;
  lines: { label: string; values: number[] }[];
  gaps: ChartGap[];
}

const HEIGHT = 260;
const dayLabel = uPlot.fmtDate('{D} {MMM}');
const hourLabel = uPlot.fmtDate('{H}:00');
const utc = (t: number) => uPlot.tzDate(new Date(t * 1000), 'Etc/UTC');

/**
 * What every chart of visits shares: the x axis from the first bucket's start to the last one's end
 * (so the last bucket reaches the right edge), labels of days or hours, a y axis from 0, the gaps
 * shaded, colours from the page's CSS (dark mode follows), and a width that follows the box.
 */
function drawFrame(target: HTMLElement, frame: { starts: number[]; span: number; gaps: ChartGap[] }, series: uPlot.Series[], data: uPlot.AlignedData) {
  const css = getComputedStyle(target);
  const colour = (name: string) => css.getPropertyValue(name).trim();
  const axis = { stroke: colour('--text'), grid: { stroke: colour('--chart-grid'), width: 1 }, ticks: { stroke: colour('--chart-grid'), width: 1 } };
  const { starts, span } = frame;
  const first = starts[0] ?? 0;
  const end = (starts.at(-1) ?? 0) + span;
  const label = (t: number) => (span === 3600 && t % 86_400 !== 0 ? hourLabel(utc(t)) : dayLabel(utc(t)));
  const plot = new uPlot(
    {
      width: Math.max(240, target.clientWidth),
      height: HEIGHT,
      tzDate: utc,
      legend: { show: false },
      cursor: { show: false },
      scales: { x: { time: true, range: () => [first, end] }, y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
      axes: [
        // The right edge is the end of the last bucket, not a bucket of its own: no label there.
        { ...axis, values: (_u, splits) => splits.map((t) => (t < end ? label(t) : '')) },
        { ...axis, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000], size: 50 },
      ],
      series: [{}, ...series],
      hooks: {
        drawClear: [(u) => shadeGaps(u, frame.gaps, colour('--chart-gap'))],
        // What the axis spans, as drawn: the tests read it (the last bucket must end at the right edge).
        draw: [(u) => void (target.dataset.span = `${u.scales.x!.min},${u.scales.x!.max}`)],
      },
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

/**
 * Visits as bars, each covering its hour or day; with both sources the QR code's visits (hatched) sit
 * under the short link's. Every gap in recording is shaded across the part it covers.
 */
export function drawVisitsChart(target: HTMLElement, spec: ChartSpec): { destroy: () => void } {
  const colour = (name: string) => getComputedStyle(target).getPropertyValue(name).trim();
  const { buckets, span } = spec;
  const bars = uPlot.paths.bars!({ align: 1, size: [span === 3600 ? 1 : 0.8, Infinity, 1] });
  const top = buckets.map((b) => (spec.show === 'q' ? b.q : spec.show === 's' ? b.s : b.s + b.q));
  const series: uPlot.Series[] = [
    {
      label: { q: 'QR code', s: 'Short link', all: 'Visits', both: 'Short link' }[spec.show],
      fill: colour(spec.show === 'q' ? '--series-q' : '--series-s'),
      stroke: 'transparent',
      paths: bars,
      points: { show: false },
    },
  ];
  const starts = buckets.map((b) => b.at);
  const data: uPlot.AlignedData = [starts, top];
  if (spec.show === 'both') {
    series.push({ label: 'QR code', fill: hatch(colour('--series-q'), colour('--bg')), stroke: 'transparent', paths: bars, points: { show: false } });
    data.push(buckets.map((b) => b.q));
  }
  return drawFrame(target, { starts, span, gaps: spec.gaps }, series, data);
}

/** One line per link, each value at the middle of its bucket with a mark on it, in colours and dashes of lineStyle. */
export function drawLinesChart(target: HTMLElement, spec: LinesSpec): { destroy: () => void } {
  const css = getComputedStyle(target);
  const series: uPlot.Series[] = spec.lines.map((line, i) => {
    const { colour, dash } = lineStyle(i);
    const stroke = css.getPropertyValue(colour).trim();
    return { label: line.label, stroke, width: 2, dash, points: { show: true, size: 6, stroke, fill: stroke } };
  });
  const middles = spec.starts.map((at) => at + spec.span / 2);
  return drawFrame(target, spec, series, [middles, ...spec.lines.map((line) => line.values)]);
}

/** Diagonal stripes of `ink` on `paper`: the QR code's bars differ from the short link's by more than colour. */
function hatch(ink: string, paper: string): CanvasPattern | string {
  const tile = document.createElement('canvas');
  tile.width = tile.height = 6;
  const ctx = tile.getContext('2d');
  if (!ctx) return ink;
  ctx.fillStyle = ink;
  ctx.fillRect(0, 0, 6, 6);
  ctx.strokeStyle = paper;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.moveTo(0, 6);
  ctx.lineTo(6, 0);
  ctx.stroke();
  return ctx.createPattern(tile, 'repeat') ?? ink;
}

/** Each gap as a band over the plotting area, at least five pixels wide so a short one stays visible. */
function shadeGaps(u: uPlot, gaps: ChartGap[], fill: string): void {
  const { left, top, width, height } = u.bbox;
  const ctx = u.ctx;
  ctx.save();
  ctx.fillStyle = fill;
  for (const gap of gaps) {
    const x0 = Math.max(left, u.valToPos(gap.from, 'x', true));
    const x1 = Math.min(left + width, u.valToPos(gap.to, 'x', true));
    if (x1 < left || x0 > left + width) continue;
    ctx.fillRect(x0, top, Math.max(5 * devicePixelRatio, x1 - x0), height);
  }
  ctx.restore();
}
