import { FONT, GLYPHS } from './glyphs.js';

/**
 * Text as outlines (DejaVu Sans Bold, src/qr/glyphs.ts): the frame's call to action and the printed
 * short URL need no font on the machine that opens the SVG, rasterises the PNG or prints the PDF.
 */

export { FONT };

/** Characters the frame can draw; anything else in a call to action is refused (400 invalid_request). */
export function drawable(text: string): boolean {
  return [...text].every((ch) => Object.hasOwn(GLYPHS, ch));
}

/** Moves an absolute path (M, L, Q, C, Z as the generator writes them) right by `dx` font units. */
function shifted(d: string, dx: number): string {
  if (dx === 0) return d;
  return d.replace(/([MLQCZ])([^MLQCZ]*)/g, (_, command: string, args: string) => {
    const values = args.match(/-?\d+(?:\.\d+)?/g) ?? [];
    return command + values.map((v, i) => (i % 2 === 0 ? String(Number(v) + dx) : v)).join(' ');
  });
}

export interface TextOutline {
  /** Path data in font units: baseline at y 0, the text starting at x 0, y growing downwards. */
  d: string;
  /** Advance width of the whole text, in font units. */
  width: number;
}

export function textOutline(text: string): TextOutline {
  let pen = 0;
  let d = '';
  for (const ch of text) {
    const glyph = GLYPHS[ch] ?? GLYPHS['?']!;
    d += shifted(glyph[1], pen);
    pen += glyph[0];
  }
  return { d, width: pen };
}

function num(value: number): string {
  return String(Number(value.toFixed(4)));
}

/**
 * One line of text centred on `centerX`, its capital letters centred on `middleY`, at `capHeight`
 * pixels for a capital letter, narrowed to `maxWidth` when it is longer.
 */
export function centredText(text: string, fill: string, box: { centerX: number; middleY: number; capHeight: number; maxWidth: number }): string {
  const outline = textOutline(text);
  if (outline.width === 0) return '';
  const byHeight = box.capHeight / FONT.capHeight;
  const k = Math.min(byHeight, box.maxWidth / outline.width);
  const x = box.centerX - (outline.width * k) / 2;
  const y = box.middleY + (FONT.capHeight * k) / 2;
  return `<path fill="${fill}" transform="matrix(${num(k)} 0 0 ${num(k)} ${num(x)} ${num(y)})" d="${outline.d}"/>`;
}
