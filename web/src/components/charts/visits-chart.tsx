import { useEffect, useRef } from 'preact/hooks';
import { lineStyle } from './line-styles.js';
import type { ChartSpec, LinesSpec } from './uplot-visits.js';
import './charts.css';

interface VisitsChartProps {
  /** Bars of a link's visits, or (with `lines`) one line per link of a campaign. */
  spec: ChartSpec | LinesSpec;
  /** What one bar or point is, for the caption: "Visits per hour (Europe/Berlin)". */
  caption: string;
  /** The id of the table with the same numbers, which the chart's description points to. */
  tableId: string;
}

/**
 * The chart of visits; uPlot loads with it (a dynamic import), so pages without a chart carry none of
 * it. The canvas is hidden from assistive technology: the table beside it holds the same numbers.
 */
export function VisitsChart({ spec, caption, tableId }: VisitsChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const key = JSON.stringify(spec);
  useEffect(() => {
    let chart: { destroy: () => void } | undefined;
    let cancelled = false;
    const draw = async () => {
      const charts = await import('./uplot-visits.js');
      if (cancelled || !box.current) return;
      chart?.destroy();
      chart = 'lines' in spec ? charts.drawLinesChart(box.current, spec) : charts.drawVisitsChart(box.current, spec);
      box.current.dataset.drawn = key.length.toString();
    };
    void draw();
    // Colours are read from the page's CSS once per drawing: a change of light or dark mode redraws.
    const scheme = matchMedia('(prefers-color-scheme: dark)');
    const redraw = () => void draw();
    scheme.addEventListener('change', redraw);
    return () => {
      cancelled = true;
      scheme.removeEventListener('change', redraw);
      chart?.destroy();
    };
  }, [key]);
  return (
    <figure class="visits-chart">
      <figcaption>
        {caption}. <Legend spec={spec} /> {spec.gaps.length > 0 && <span class="legend legend-gap">Not recorded</span>}{' '}
        <a href={`#${tableId}`}>The same numbers as a table</a>
      </figcaption>
      <div ref={box} class="chart-canvas" aria-hidden="true" />
    </figure>
  );
}

/** Which colour (and hatching or dash) is which: the sources, or each line in the chart's order. */
function Legend({ spec }: { spec: ChartSpec | LinesSpec }) {
  if ('lines' in spec)
    return (
      <>
        {spec.lines.map((line, i) => {
          const { colour, dash } = lineStyle(i);
          return (
            <span key={i} class="legend-line">
              <svg width="28" height="8" aria-hidden="true">
                <line x1="0" y1="4" x2="28" y2="4" stroke={`var(${colour})`} stroke-width="3" stroke-dasharray={dash.join(' ') || undefined} />
              </svg>
              {line.label}
            </span>
          );
        })}
      </>
    );
  if (spec.show === 'all') return <span class="legend legend-s">Visits</span>;
  return (
    <>
      {spec.show !== 'q' && <span class="legend legend-s">Short link</span>} {spec.show !== 's' && <span class="legend legend-q">QR code</span>}
    </>
  );
}
