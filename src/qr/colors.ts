/**
 * Colour rules of the QR export (API.md: "the background must be light and the contrast at least 4.5"),
 * with WCAG 2.x relative luminance and contrast ratio so that the figures match any contrast checker.
 */
import { API_LIMITS } from '../platform/api-limits.js';

export const HEX_COLOR_PATTERN = '^#[a-fA-F0-9]{6}$';

/** WCAG 2.x minimum contrast for normal text (AA); scanners need at least as much as eyes do. */
export const MIN_CONTRAST = API_LIMITS.qr.minContrast;

/**
 * "Light" background: relative luminance at least 0.4 (CIE L* ≈ 69, well past mid-grey at L* 50).
 * Readers look for dark modules on a light ground; many never try the inverted polarity.
 */
export const MIN_BACKGROUND_LUMINANCE = 0.4;

function channel(value: number): number {
  const c = value / 255;
  return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** Relative luminance of a `#rrggbb` colour, 0 (black) to 1 (white). */
export function luminance(hex: string): number {
  const n = Number.parseInt(hex.slice(1), 16);
  return 0.2126 * channel((n >> 16) & 0xff) + 0.7152 * channel((n >> 8) & 0xff) + 0.0722 * channel(n & 0xff);
}

/** WCAG contrast ratio, 1 to 21, symmetric in its arguments. */
export function contrastRatio(a: string, b: string): number {
  const [la, lb] = [luminance(a), luminance(b)];
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/** Why a foreground/background pair may not be exported, or undefined when it may. */
export function colorProblem(foreground: string, background: string): string | undefined {
  const re = new RegExp(HEX_COLOR_PATTERN);
  if (!re.test(foreground) || !re.test(background)) return 'colours must be #rrggbb';
  if (luminance(background) < MIN_BACKGROUND_LUMINANCE) return 'background is not light';
  // Implied by the two other rules today, but checked on its own: the contrast ratio is symmetric
  // and would otherwise accept an inverted (light-on-dark) code if the background rule changed.
  if (luminance(foreground) >= luminance(background)) return 'foreground is not darker than background';
  if (contrastRatio(foreground, background) < MIN_CONTRAST) return `contrast below ${MIN_CONTRAST}`;
  return undefined;
}

export const PRESET_NAMES = ['classic', 'sage', 'ocean', 'rose', 'clay', 'ink'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

/** Each preset passes colorProblem() with room to spare (see docs/decisions.md for the ratios). */
export const PRESETS: Readonly<Record<PresetName, { foreground: string; background: string }>> = {
  classic: { foreground: '#000000', background: '#ffffff' },
  sage: { foreground: '#2f4a3a', background: '#eef3ea' },
  ocean: { foreground: '#0b3d5c', background: '#e8f4fa' },
  rose: { foreground: '#7a1f3d', background: '#fdf0f3' },
  clay: { foreground: '#6b3a26', background: '#f8efe6' },
  ink: { foreground: '#1b1f3b', background: '#f5f5f0' },
};
