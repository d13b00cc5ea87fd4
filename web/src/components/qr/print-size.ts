import { codeWidthShare } from '../../../../src/qr/frame.js';

/** Dots per inch of the PNG download: what printers ask for. */
export const PRINT_DPI = 300;
const CM_PER_INCH = 2.54;
const POINTS_PER_INCH = 72;

/** The usual rule for QR codes: a code scans from up to ten times its width. */
const REACH_PER_WIDTH = 10;

/** Scanning distances offered, in metres, with where such a code hangs. */
export const DISTANCES: readonly { metres: number; where: string }[] = [
  { metres: 0.3, where: 'a flyer or a card in the hand' },
  { metres: 0.5, where: 'a table or a counter' },
  { metres: 1, where: 'a shop window' },
  { metres: 2, where: 'a poster on a wall' },
  { metres: 3, where: 'a poster across a room' },
  { metres: 5, where: 'a banner' },
  { metres: 10, where: 'a sign seen from the street' },
];

/** Pixels across `cm` at 300 dpi: the PNG's width. */
export const pixelsAt300Dpi = (cm: number): number => Math.round((cm / CM_PER_INCH) * PRINT_DPI);

/** PDF points (1/72 inch) across `cm`: the PDF page's width. */
export const pointsOf = (cm: number): number => (cm / CM_PER_INCH) * POINTS_PER_INCH;

/** The printed width of the code itself, quiet zone included, when the whole piece is `printCm` wide. */
export const codeCm = (printCm: number, framed: boolean): number => printCm * codeWidthShare(framed);

/** How far away the printed code still scans, in metres. */
export const reachMetres = (printCm: number, framed: boolean): number => (codeCm(printCm, framed) * REACH_PER_WIDTH) / 100;

/** The smallest print size, in centimetres (rounded up to a millimetre), whose code scans from `metres`. */
export function smallestPrintCm(metres: number, framed: boolean): number {
  return Math.ceil(((metres * 100) / REACH_PER_WIDTH / codeWidthShare(framed)) * 10 - 1e-9) / 10;
}

/** A length for people: centimetres under a metre, metres with one decimal from there (never rounded up). */
export function formatDistance(metres: number): string {
  // A hair of tolerance: 4.6 cm × 10 is 0.46000000000000008 m in floating point, and must not show as 45 cm.
  if (metres < 1) return `${Math.floor(metres * 100 + 1e-9)} cm`;
  return `${(Math.floor(metres * 10 + 1e-9) / 10).toLocaleString('en')} m`;
}

export const formatCm = (cm: number): string => `${Number(cm.toFixed(1)).toLocaleString('en')} cm`;
