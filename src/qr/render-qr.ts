import { AppError } from '../platform/errors.js';
import { API_LIMITS } from '../platform/api-limits.js';
import { colorProblem, PRESETS, type PresetName } from './colors.js';
import { qrMatrix, QUIET_ZONE } from './matrix.js';
import { parsePngLogo, type PngLogo } from './png-logo.js';
import { CORNER_STYLES, DOT_STYLES, finder, modules, type CornerStyle, type DotStyle } from './shapes.js';

/** API.md part 4 defaults; `square` for dots and corners is ours (the plainest, most readable). */
export const QR_DEFAULTS = { preset: 'classic', size: API_LIMITS.qr.defaultSize, dots: 'square', corners: 'square' } as const;

export interface QrOptions {
  preset?: PresetName;
  size?: number;
  foreground?: string;
  background?: string;
  dots?: DotStyle;
  corners?: CornerStyle;
  logoPng?: string;
}

interface ResolvedOptions {
  size: number;
  foreground: string;
  background: string;
  dots: DotStyle;
  corners: CornerStyle;
  logo?: PngLogo;
}

/**
 * Fills what the caller omitted and enforces every rule the schema cannot express. A colour left out
 * comes from the preset, so `{ background: '#fff8e1' }` keeps the preset's foreground: the pair is
 * then checked as a whole. Any violation is 400 invalid_request.
 */
export function resolveQrOptions(options: QrOptions): ResolvedOptions {
  const presetName = options.preset ?? QR_DEFAULTS.preset;
  const preset = Object.hasOwn(PRESETS, presetName) ? PRESETS[presetName] : undefined;
  const size = options.size ?? QR_DEFAULTS.size;
  const dots = options.dots ?? QR_DEFAULTS.dots;
  const corners = options.corners ?? QR_DEFAULTS.corners;
  // The schema already guards HTTP callers; these keep in-process callers (bench, CLI) to the same rules.
  if (!preset || !Number.isInteger(size) || size < API_LIMITS.qr.minSize || size > API_LIMITS.qr.maxSize) throw new AppError('invalid_request');
  if (!DOT_STYLES.includes(dots) || !CORNER_STYLES.includes(corners)) throw new AppError('invalid_request');
  const foreground = (options.foreground ?? preset.foreground).toLowerCase();
  const background = (options.background ?? preset.background).toLowerCase();
  if (colorProblem(foreground, background)) throw new AppError('invalid_request');
  const logo = options.logoPng === undefined ? undefined : parsePngLogo(options.logoPng);
  if (options.logoPng !== undefined && !logo) throw new AppError('invalid_request');
  return {
    size,
    foreground,
    background,
    dots,
    corners,
    ...(logo ? { logo } : {}),
  };
}

function num(value: number): string {
  return String(Number(value.toFixed(6)));
}

/**
 * The SVG for `text` (the link's tracked /q/ URL). Drawn in module units inside one scaled group, so
 * the path holds small integers whatever the pixel size; width, height and viewBox are `size`.
 */
export function renderQr(text: string, options: QrOptions = {}): string {
  const o = resolveQrOptions(options);
  const matrix = qrMatrix(text, o.logo !== undefined);
  const scale = o.size / (matrix.size + 2 * QUIET_ZONE);
  const d = modules(matrix.size, matrix.isDark, matrix.isFunction, o.dots) + matrix.finders.map(([r, c]) => finder(r, c, o.corners)).join('');
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${o.size}" height="${o.size}" viewBox="0 0 ${o.size} ${o.size}">`,
    `<rect width="${o.size}" height="${o.size}" fill="${o.background}"/>`,
    `<g transform="scale(${num(scale)}) translate(${QUIET_ZONE} ${QUIET_ZONE})">`,
    `<path fill="${o.foreground}" fill-rule="evenodd" d="${d}"/>`,
  ];
  if (o.logo && matrix.logoArea) {
    // Half a module of background on every side, so the logo's edge never touches a module.
    const { start, side } = matrix.logoArea;
    parts.push(`<image x="${start + 0.5}" y="${start + 0.5}" width="${side - 1}" height="${side - 1}" xlink:href="${o.logo.dataUrl}"/>`);
  }
  parts.push('</g></svg>');
  return parts.join('');
}
