import { colorProblem, contrastRatio, MIN_CONTRAST, PRESETS, type PresetName } from '../../../../src/qr/colors.js';
import type { QrDesignInput } from '../../../../src/qr/design-schemas.js';
import { undrawable } from '../../../../src/qr/frame-characters.js';
import type { CornerStyle, DotStyle } from '../../../../src/qr/shapes.js';
import { API_LIMITS } from '../../../../src/platform/api-limits.js';

export { PRESET_NAMES, PRESETS, type PresetName } from '../../../../src/qr/colors.js';
export { CORNER_STYLES, DOT_STYLES } from '../../../../src/qr/shapes.js';

const { minSize, maxSize, defaultSize, callToActionMaxLength, printMinCm, printMaxCm, defaultPrintCm } = API_LIMITS.qr;

/** Everything the designer lets a person choose; `size` and `printSizeCm` are text while they are being typed. */
export interface QrDesign {
  preset: PresetName;
  foreground: string;
  background: string;
  dots: DotStyle;
  corners: CornerStyle;
  size: string;
  logoPng?: string;
  callToAction: string;
  printShortUrl: boolean;
  printSizeCm: string;
}

export const INITIAL_DESIGN: QrDesign = {
  preset: 'classic',
  ...PRESETS.classic,
  dots: 'square',
  corners: 'square',
  size: String(defaultSize),
  callToAction: '',
  printShortUrl: false,
  printSizeCm: String(defaultPrintCm),
};

/** A design as the API saves it (PUT /links/{id}/qr/design) and draws it. */
export type QrRequest = QrDesignInput;

const HEX = /^#[0-9a-fA-F]{6}$/;

/** The contrast ratio of the two colours (the WCAG formula the API applies), or undefined while either is incomplete. */
export function designContrast(design: QrDesign): number | undefined {
  return HEX.test(design.foreground) && HEX.test(design.background) ? contrastRatio(design.foreground, design.background) : undefined;
}

/** Why the colours or the size cannot be drawn, in words a person can act on; undefined when they can. */
export function colourProblem(design: QrDesign): string | undefined {
  if (!HEX.test(design.foreground) || !HEX.test(design.background)) return 'Write each colour as # and six hexadecimal digits, for example #1b1f3b.';
  const problem = colorProblem(design.foreground, design.background);
  if (problem === 'background is not light')
    return 'The background is too dark: phone cameras look for dark modules on a light ground. Choose a lighter background.';
  if (problem === 'foreground is not darker than background')
    return 'The foreground must be darker than the background, or many phones will not read the code.';
  if (problem !== undefined) {
    return `The contrast is below ${MIN_CONTRAST}:1, so phones may fail to read the code in poor light or from print. Make the foreground darker or the background lighter.`;
  }
  const size = Number(design.size);
  if (!/^\d+$/.test(design.size.trim()) || size < minSize || size > maxSize) return `The size must be a whole number of pixels from ${minSize} to ${maxSize}.`;
  return undefined;
}

/** Why the frame cannot carry this call to action (said at its field), or undefined. */
export function callToActionProblem(text: string): string | undefined {
  if ([...text.trim()].length > callToActionMaxLength) return `At most ${callToActionMaxLength} characters fit in the frame.`;
  const refused = undrawable(text);
  if (refused.length > 0) {
    return `The frame cannot draw ${refused.map((ch) => `“${ch}”`).join(' ')}: use Latin letters, digits and common punctuation.`;
  }
  return undefined;
}

/** The print size in centimetres, or undefined while it is not a number in bounds (a comma is a decimal point). */
export function printSizeCm(design: QrDesign): number | undefined {
  const text = design.printSizeCm.trim().replace(',', '.');
  const cm = Number(text);
  return /^\d+(\.\d+)?$/.test(text) && cm >= printMinCm && cm <= printMaxCm ? cm : undefined;
}

export function printSizeProblem(design: QrDesign): string | undefined {
  return printSizeCm(design) === undefined ? `The print size must be a number of centimetres from ${printMinCm} to ${printMaxCm}, for example 7.5.` : undefined;
}

/** Why the code cannot be drawn at all: nothing is asked of the API then. */
export function designProblem(design: QrDesign): string | undefined {
  return colourProblem(design) ?? callToActionProblem(design.callToAction);
}

/** What the preview draws: the design without its print size, which changes nothing in the SVG. */
export function previewRequest(design: QrDesign): QrRequest {
  const { logoPng, size, printSizeCm: _print, callToAction, ...rest } = design;
  return { ...rest, size: Number(size), callToAction: callToAction.trim(), ...(logoPng ? { logoPng } : {}) };
}

/** The design as it is saved (undefined while the print size is not valid). */
export function saveRequest(design: QrDesign): QrRequest | undefined {
  const cm = printSizeCm(design);
  return cm === undefined ? undefined : { ...previewRequest(design), printSizeCm: cm };
}

/** A saved design in the designer's fields: omitted fields at the API's defaults, omitted colours from its preset. */
export function designFromSaved(saved: QrDesignInput): QrDesign {
  const preset = saved.preset ?? INITIAL_DESIGN.preset;
  return {
    ...INITIAL_DESIGN,
    ...PRESETS[preset],
    preset,
    ...(saved.foreground ? { foreground: saved.foreground } : {}),
    ...(saved.background ? { background: saved.background } : {}),
    ...(saved.dots ? { dots: saved.dots } : {}),
    ...(saved.corners ? { corners: saved.corners } : {}),
    ...(saved.logoPng ? { logoPng: saved.logoPng } : {}),
    size: String(saved.size ?? defaultSize),
    callToAction: saved.callToAction ?? '',
    printShortUrl: saved.printShortUrl ?? false,
    printSizeCm: String(saved.printSizeCm ?? defaultPrintCm),
  };
}
