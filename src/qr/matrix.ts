import QRCode from 'qrcode';

/** Modules of margin around the symbol: ISO/IEC 18004 asks for four. */
export const QUIET_ZONE = 4;

/**
 * Side of the area cleared for a logo, as a fraction of the symbol's side. 0.25 of the side (about 6%
 * of the modules) touches 7–17% of the codewords; per Reed-Solomon block that is at most about half of
 * what level H corrects for versions 3–10 (every URL this service encodes) and under three quarters
 * up to version 40, the rest being left for print and camera damage (docs/decisions.md).
 */
export const LOGO_AREA_FRACTION = 0.25;

export interface QrMatrix {
  /** Modules per side, quiet zone excluded. */
  size: number;
  /** Dark data, timing and alignment modules (finder patterns excluded: they are drawn as shapes). */
  isDark: (row: number, col: number) => boolean;
  /**
   * Timing, alignment, format and version modules: readers locate and calibrate with these, so
   * styles that shrink modules (dots) must draw them whole.
   */
  isFunction: (row: number, col: number) => boolean;
  /** Top-left module of each finder pattern, [row, col]. */
  finders: [number, number][];
  /** The cleared square for a logo: first module and side, or undefined without a logo. */
  logoArea?: { start: number; side: number };
}

/** Largest odd number of modules not above the fraction, so the area sits exactly in the middle. */
function logoSide(size: number): number {
  const side = Math.floor(size * LOGO_AREA_FRACTION);
  return side % 2 === 1 ? side : side - 1;
}

export function qrMatrix(text: string, withLogo: boolean): QrMatrix {
  // Level H (~30% of codewords recoverable) pays for the cleared logo area; M (~15%) otherwise keeps
  // the symbol small and its modules large, which scans better from a distance.
  const { modules } = QRCode.create(text, { errorCorrectionLevel: withLogo ? 'H' : 'M' });
  const n = modules.size;
  const side = logoSide(n);
  const logoArea = withLogo ? { start: (n - side) / 2, side } : undefined;
  const inLogo = (r: number, c: number) =>
    logoArea !== undefined && r >= logoArea.start && r < logoArea.start + side && c >= logoArea.start && c < logoArea.start + side;
  const inFinder = (r: number, c: number) => (r < 7 || r >= n - 7) && (c < 7 || c >= n - 7) && !(r >= n - 7 && c >= n - 7);
  return {
    size: n,
    isDark: (r, c) => r >= 0 && c >= 0 && r < n && c < n && modules.get(r, c) === 1 && !inFinder(r, c) && !inLogo(r, c),
    isFunction: (r, c) => modules.isReserved(r, c) === 1,
    finders: [
      [0, 0],
      [0, n - 7],
      [n - 7, 0],
    ],
    ...(logoArea ? { logoArea } : {}),
  };
}
