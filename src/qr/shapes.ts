/**
 * SVG path fragments in module units. Every shape is closed and no two overlap, so the whole code can
 * be one `<path>` with the even-odd rule (which is what makes the holes of the finder rings).
 */

export const DOT_STYLES = ['square', 'rounded', 'dots'] as const;
export type DotStyle = (typeof DOT_STYLES)[number];
export const CORNER_STYLES = ['square', 'rounded'] as const;
export type CornerStyle = (typeof CORNER_STYLES)[number];

/** Dot diameter in modules: a small gap between dots, while the module's centre stays well covered. */
const DOT_DIAMETER = 0.9;

function num(value: number): string {
  // "0.5" → ".5": a few percent off a path of thousands of numbers.
  return String(Number(value.toFixed(3))).replace(/^(-?)0\./, '$1.');
}

export function roundedRect(x: number, y: number, w: number, h: number, r: number): string {
  if (r === 0) return `M${num(x)} ${num(y)}h${num(w)}v${num(h)}h${num(-w)}z`;
  const arc = (dx: number, dy: number) => `a${num(r)} ${num(r)} 0 0 1 ${num(dx)} ${num(dy)}`;
  return (
    `M${num(x + r)} ${num(y)}h${num(w - 2 * r)}${arc(r, r)}v${num(h - 2 * r)}${arc(-r, r)}` + `h${num(2 * r - w)}${arc(-r, -r)}v${num(2 * r - h)}${arc(r, -r)}z`
  );
}

/**
 * The same outline drawn the other way round (counter-clockwise). A hole drawn this way is a hole under
 * the non-zero rule as well as the even-odd one, which is the only rule PDF's plain fill knows.
 */
export function roundedHole(x: number, y: number, w: number, h: number, r: number): string {
  if (r === 0) return `M${num(x)} ${num(y)}v${num(h)}h${num(w)}v${num(-h)}z`;
  const arc = (dx: number, dy: number) => `a${num(r)} ${num(r)} 0 0 0 ${num(dx)} ${num(dy)}`;
  return `M${num(x + r)} ${num(y)}${arc(-r, r)}v${num(h - 2 * r)}${arc(r, r)}h${num(w - 2 * r)}` + `${arc(r, -r)}v${num(2 * r - h)}${arc(-r, -r)}z`;
}

/** A 7×7 finder pattern: ring of one module around a 3×3 eye; `rounded` softens both. */
export function finder(row: number, col: number, style: CornerStyle): string {
  const [x, y] = [col, row];
  const [outer, hole, eye] = style === 'rounded' ? [2, 1.5, 1] : [0, 0, 0];
  return roundedRect(x, y, 7, 7, outer) + roundedHole(x + 1, y + 1, 5, 5, hole) + roundedRect(x + 2, y + 2, 3, 3, eye);
}

type Dark = (row: number, col: number) => boolean;

/** One row of square modules, merged into runs so the path stays short. */
function squareRow(row: number, size: number, isDark: Dark, skip: (col: number) => boolean): string {
  let out = '';
  for (let col = 0; col < size; col++) {
    if (!isDark(row, col) || skip(col)) continue;
    let end = col + 1;
    while (end < size && isDark(row, end) && !skip(end)) end++;
    out += `M${col} ${row}h${end - col}v1h${col - end}z`;
    col = end;
  }
  return out;
}

/** A module whose corners are rounded where both neighbours on that corner are light (half-module radius). */
function roundedModule(row: number, col: number, corners: [boolean, boolean, boolean, boolean]): string {
  const [tl, tr, br, bl] = corners.map((c) => (c ? 0.5 : 0)) as [number, number, number, number];
  const arc = (r: number, dx: number, dy: number) => (r ? `a.5 .5 0 0 1 ${num(dx)} ${num(dy)}` : '');
  return (
    `M${num(col + tl)} ${row}h${num(1 - tl - tr)}${arc(tr, 0.5, 0.5)}v${num(1 - tr - br)}${arc(br, -0.5, 0.5)}` +
    `h${num(br + bl - 1)}${arc(bl, -0.5, -0.5)}v${num(bl + tl - 1)}${arc(tl, 0.5, -0.5)}z`
  );
}

function roundedRows(size: number, isDark: Dark): string {
  let out = '';
  const cornersOf = (r: number, c: number): [boolean, boolean, boolean, boolean] => {
    const [up, down, left, right] = [isDark(r - 1, c), isDark(r + 1, c), isDark(r, c - 1), isDark(r, c + 1)];
    return [!up && !left, !up && !right, !down && !right, !down && !left];
  };
  for (let row = 0; row < size; row++) {
    // Modules with no rounded corner join square runs; the others are drawn one by one.
    const rounded = (col: number) => cornersOf(row, col).some(Boolean);
    out += squareRow(row, size, isDark, rounded);
    for (let col = 0; col < size; col++) if (isDark(row, col) && rounded(col)) out += roundedModule(row, col, cornersOf(row, col));
  }
  return out;
}

function dotRows(size: number, isDark: Dark, isFunction: Dark): string {
  const r = num(DOT_DIAMETER / 2);
  const d = num(DOT_DIAMETER);
  let out = '';
  for (let row = 0; row < size; row++) {
    out += squareRow(row, size, isDark, (col) => !isFunction(row, col));
    for (let col = 0; col < size; col++) {
      if (isDark(row, col) && !isFunction(row, col))
        out += `M${num(col + (1 - DOT_DIAMETER) / 2)} ${num(row + 0.5)}a${r} ${r} 0 1 0 ${d} 0a${r} ${r} 0 1 0 -${d} 0z`;
    }
  }
  return out;
}

/** Every dark module except the finder patterns, in the given style. */
export function modules(size: number, isDark: Dark, isFunction: Dark, style: DotStyle): string {
  if (style === 'dots') return dotRows(size, isDark, isFunction);
  if (style === 'rounded') return roundedRows(size, isDark);
  let out = '';
  for (let row = 0; row < size; row++) out += squareRow(row, size, isDark, () => false);
  return out;
}
