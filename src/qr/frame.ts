import { roundedHole, roundedRect } from './shapes.js';
import { centredText } from './text-paths.js';

/** What goes around the code: a frame carrying a call to action, and the short URL printed under it. */
export interface QrFrame {
  /** Text in the frame's band under the code; empty or absent: no frame. */
  callToAction?: string;
  /** Printed under the code (and under the frame, when there is one). */
  caption?: string;
}

/** Where the code goes in the file, and what is drawn around it. Every length is in pixels. */
export interface FrameLayout {
  width: number;
  height: number;
  code: { x: number; y: number; side: number };
  /** SVG elements drawn over the background before the code (the frame and its texts). */
  decoration: string[];
}

/** Frame border, as a fraction of the file's width; the band under the code and the caption line, of the code's side. */
const BORDER = 0.04;
const BAND = 0.2;
const CAPTION = 0.11;

/** The code's share of the file's width (its quiet zone included): all of it, or less the frame's border. */
export function codeWidthShare(framed: boolean): number {
  return framed ? 1 - 2 * BORDER : 1;
}

/**
 * The file is `size` wide whatever is around the code, so a print size is the size of the whole
 * piece; the code shrinks by the frame's border and the file grows downwards by the band and the
 * caption. The code keeps its own quiet zone inside the frame, so the frame never touches a module.
 */
export function frameLayout(size: number, frame: QrFrame, colours: { foreground: string; background: string }): FrameLayout {
  const cta = frame.callToAction?.trim() ?? '';
  const caption = frame.caption?.trim() ?? '';
  if (!cta && !caption) return { width: size, height: size, code: { x: 0, y: 0, side: size }, decoration: [] };
  const border = cta ? Math.round(size * BORDER) : 0;
  const side = size - 2 * border;
  const band = cta ? Math.round(side * BAND) : 0;
  const framed = border + side + band;
  const captionHeight = caption ? Math.round(side * CAPTION) : 0;
  const decoration: string[] = [];
  if (cta) {
    // One path: the rounded outline with the code's square cut out (drawn the other way round).
    const d = roundedRect(0, 0, size, framed, border * 1.5) + roundedHole(border, border, side, side, border * 0.5);
    decoration.push(`<path fill="${colours.foreground}" d="${d}"/>`);
    const text = { centerX: size / 2, middleY: border + side + band * 0.45, capHeight: band * 0.42, maxWidth: side * 0.92 };
    decoration.push(centredText(cta, colours.background, text));
  }
  if (caption) {
    const text = { centerX: size / 2, middleY: framed + captionHeight * 0.5, capHeight: captionHeight * 0.36, maxWidth: size * 0.92 };
    decoration.push(centredText(caption, colours.foreground, text));
  }
  return { width: size, height: framed + captionHeight, code: { x: border, y: border, side }, decoration };
}
