import { AppError } from '../platform/errors.js';
import { API_LIMITS } from '../platform/api-limits.js';
import { colorProblem, PRESETS, type PresetName } from './colors.js';
import { qrMatrix, QUIET_ZONE } from './matrix.js';
import { parsePngLogo, type PngLogo } from './png-logo.js';
import { frameLayout, type QrFrame } from './frame.js';
import { drawable } from './text-paths.js';
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
 * The SVG for `text` (the link's tracked /q/ URL). The code is drawn in module units inside one scaled
 * group, so the path holds small integers whatever the pixel size. Without a frame or caption, width,
 * height and viewBox are `size`; with them the file stays `size` wide and grows downwards (frame.ts).
 */
export function renderQr(text: string, options: QrOptions = {}, frame: QrFrame = {}): string {
  const o = resolveQrOptions(options);
  if (frame.callToAction !== undefined && (frame.callToAction.length > API_LIMITS.qr.callToActionMaxLength || !drawable(frame.callToAction))) {
    throw new AppError('invalid_request');
  }
  const matrix = qrMatrix(text, o.logo !== undefined);
  const layout = frameLayout(o.size, frame, o);
  const { x, y, side } = layout.code;
  const scale = side / (matrix.size + 2 * QUIET_ZONE);
  const d = modules(matrix.size, matrix.isDark, matrix.isFunction, o.dots) + matrix.finders.map(([r, c]) => finder(r, c, o.corners)).join('');
  const [w, h] = [layout.width, layout.height];
  const translate = `${num(x + QUIET_ZONE * scale)} ${num(y + QUIET_ZONE * scale)}`;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">`,
    `<rect width="${w}" height="${h}" fill="${o.background}"/>`,
    ...layout.decoration,
    // Unframed, this is the transform the export has always had: scale, then the quiet zone.
    x === 0 && y === 0
      ? `<g transform="scale(${num(scale)}) translate(${QUIET_ZONE} ${QUIET_ZONE})">`
      : `<g transform="matrix(${num(scale)} 0 0 ${num(scale)} ${translate})">`,
    `<path fill="${o.foreground}" fill-rule="evenodd" d="${d}"/>`,
  ];
  if (o.logo && matrix.logoArea) {
    // Half a module of background on every side, so the logo's edge never touches a module.
    const { start, side: logoSide } = matrix.logoArea;
    parts.push(`<image x="${start + 0.5}" y="${start + 0.5}" width="${logoSide - 1}" height="${logoSide - 1}" xlink:href="${o.logo.dataUrl}"/>`);
  }
  parts.push('</g></svg>');
  return parts.join('');
}
