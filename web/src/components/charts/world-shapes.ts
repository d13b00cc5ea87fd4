import { whereNumeric } from 'iso-3166-1';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import countries110m from 'world-atlas/countries-110m.json';

/** A country's outline as an SVG path on the map's plane, keyed by ISO 3166-1 alpha-2 (as the API names countries). */
export interface CountryShape {
  code: string;
  name: string;
  d: string;
}

/** The plane of the Equal Earth projection for longitudes ±180° and latitudes ±90°, scaled by SCALE. */
const SCALE = 100;
export const MAP_WIDTH = Math.round(2 * 2.7066 * SCALE);
export const MAP_HEIGHT = Math.round(2 * 1.3173 * SCALE);
/** Outlines without an ISO code of their own (Northern Cyprus, Somaliland) stay unshaded; Kosovo is XK, as GeoIP names it. */
const EXTRA: Record<string, string> = { Kosovo: 'XK' };
/** Antarctica: no one scans a poster there, and its outline along the pole would cross the whole map. */
const LEFT_OUT = new Set(['010']);

/** Equal Earth (Šavrič, Patterson and Jenny, 2018): areas true to size, so shading compares fairly. */
function project(lon: number, lat: number): [number, number] {
  const [A1, A2, A3, A4, M] = [1.340264, -0.081106, 0.000893, 0.003796, Math.sqrt(3) / 2];
  const lambda = (lon * Math.PI) / 180;
  const theta = Math.asin(M * Math.sin((lat * Math.PI) / 180));
  const t2 = theta * theta;
  const t6 = t2 * t2 * t2;
  const x = (lambda * Math.cos(theta)) / (M * (A1 + 3 * A2 * t2 + t6 * (7 * A3 + 9 * A4 * t2)));
  const y = theta * (A1 + A2 * t2 + t6 * (A3 + A4 * t2));
  return [MAP_WIDTH / 2 + x * SCALE, MAP_HEIGHT / 2 - y * SCALE];
}

const ring = (points: number[][]) =>
  `M${points
    .map(([lon, lat]) =>
      project(lon!, lat!)
        .map((v) => v.toFixed(1))
        .join(','),
    )
    .join('L')}Z`;

let shapes: CountryShape[] | undefined;

/** Natural Earth's countries at 1:110 million (the world-atlas package, bundled with this chunk: nothing is fetched). */
export function worldShapes(): CountryShape[] {
  if (shapes) return shapes;
  const topology = countries110m as unknown as Topology<{ countries: GeometryCollection<{ name: string }> }>;
  const collection = feature(topology, topology.objects.countries);
  shapes = collection.features.flatMap((country) => {
    const id = String(country.id ?? '');
    if (LEFT_OUT.has(id)) return [];
    const name = country.properties?.name ?? '';
    const code = whereNumeric(id)?.alpha2 ?? EXTRA[name] ?? '';
    const geometry = country.geometry;
    const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.type === 'MultiPolygon' ? geometry.coordinates : [];
    return [{ code, name, d: polygons.flatMap((polygon) => polygon.map(ring)).join('') }];
  });
  return shapes;
}
