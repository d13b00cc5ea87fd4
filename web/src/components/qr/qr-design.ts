import { colorProblem, contrastRatio, MIN_CONTRAST, PRESETS, type PresetName } from '../../../../src/qr/colors.js';
import type { CornerStyle, DotStyle } from '../../../../src/qr/shapes.js';
import { API_LIMITS } from '../../../../src/platform/api-limits.js';

export { PRESET_NAMES, PRESETS, type PresetName } from '../../../../src/qr/colors.js';
export { CORNER_STYLES, DOT_STYLES } from '../../../../src/qr/shapes.js';

const { minSize, maxSize, defaultSize } = API_LIMITS.qr;

/** Everything the designer lets a person choose; `size` is text while it is being typed. */
export interface QrDesign {
  preset: PresetName;
  foreground: string;
  background: string;
  dots: DotStyle;
  corners: CornerStyle;
  size: string;
  logoPng?: string;
}

export const INITIAL_DESIGN: QrDesign = { preset: 'classic', ...PRESETS.classic, dots: 'square', corners: 'square', size: String(defaultSize) };

/** The request body of POST /links/{id}/qr for a design that may be sent. */
export interface QrRequest {
  preset: PresetName;
  foreground: string;
  background: string;
  dots: DotStyle;
  corners: CornerStyle;
  size: number;
  logoPng?: string;
}

const HEX = /^#[0-9a-fA-F]{6}$/;

/** The contrast ratio of the two colours (the WCAG formula the API applies), or undefined while either is incomplete. */
export function designContrast(design: QrDesign): number | undefined {
  return HEX.test(design.foreground) && HEX.test(design.background) ? contrastRatio(design.foreground, design.background) : undefined;
}

/** Why a design cannot be sent, in words a person can act on; undefined when it may be sent. */
export function designProblem(design: QrDesign): string | undefined {
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

export function designRequest(design: QrDesign): QrRequest {
  const { logoPng, size, ...rest } = design;
  return { ...rest, size: Number(size), ...(logoPng ? { logoPng } : {}) };
}
