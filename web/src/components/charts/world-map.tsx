import { useEffect, useState } from 'preact/hooks';
import { formatNumber } from '../../ui/format.js';
import type { CountryShape } from './world-shapes.js';
import './charts.css';

interface WorldMapProps {
  /** Visits per ISO 3166-1 alpha-2 code. */
  counts: Map<string, number>;
  /** The id of the table with the same numbers. */
  tableId: string;
  /** Shown when recording stopped in the window: the map cannot show what was not recorded. */
  gapNote?: string;
}

const STEPS = 5;
/** Shade 1 to 5 by the square root of the share of the busiest country, so a few visits still show. */
const step = (count: number, max: number) => (count <= 0 || max <= 0 ? 0 : Math.max(1, Math.ceil(Math.sqrt(count / max) * STEPS)));

interface Loaded {
  shapes: CountryShape[];
  width: number;
  height: number;
}

/**
 * A choropleth of visits by country. The outlines come in a chunk of their own, loaded when a map is
 * first drawn, so only the pages with a map carry them. The drawing is hidden from assistive
 * technology: the countries table beside it holds the same numbers.
 */
export function WorldMap({ counts, tableId, gapNote }: WorldMapProps) {
  const [loaded, setLoaded] = useState<Loaded>();
  useEffect(() => {
    let cancelled = false;
    void import('./world-shapes.js').then((module) => {
      if (!cancelled) setLoaded({ shapes: module.worldShapes(), width: module.MAP_WIDTH, height: module.MAP_HEIGHT });
    });
    return () => {
      cancelled = true;
    };
  }, []);
  const max = Math.max(0, ...counts.values());
  const onMap = loaded ? loaded.shapes.filter((s) => (counts.get(s.code) ?? 0) > 0).length : 0;
  const off = [...counts.keys()].filter((code) => code !== 'unknown' && !loaded?.shapes.some((s) => s.code === code)).length;
  return (
    <figure class="world-map">
      <figcaption>
        Visits by country: darker is more. {off > 0 && 'Countries too small for this map are in the table. '}
        {gapNote && `${gapNote} `}
        <a href={`#${tableId}`}>The same numbers as a table</a>
      </figcaption>
      {loaded ? (
        <svg viewBox={`0 0 ${loaded.width} ${loaded.height}`} aria-hidden="true" data-countries-shaded={onMap}>
          {loaded.shapes.map((shape) => {
            const count = counts.get(shape.code) ?? 0;
            return (
              <path key={shape.code || shape.name} d={shape.d} class={`map-step-${step(count, max)}`}>
                <title>{`${shape.name}: ${formatNumber(count)}`}</title>
              </path>
            );
          })}
        </svg>
      ) : (
        <div class="map-placeholder" />
      )}
      <div class="map-legend" aria-hidden="true">
        Fewer{' '}
        {Array.from({ length: STEPS }, (_, i) => (
          <span key={i} class={`map-swatch map-step-${i + 1}`} />
        ))}{' '}
        More
      </div>
    </figure>
  );
}
