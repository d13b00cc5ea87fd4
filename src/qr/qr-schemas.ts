import { Type, type Static } from '@sinclair/typebox';
import { HEX_COLOR_PATTERN, MIN_BACKGROUND_LUMINANCE, PRESET_NAMES } from './colors.js';
import { QR_DEFAULTS } from './render-qr.js';
import { CORNER_STYLES, DOT_STYLES } from './shapes.js';
import { CODE_UNIT_LENGTHS, StringEnum } from '../platform/http/common-schemas.js';
import { API_LIMITS } from '../platform/api-limits.js';

const { qr: bounds } = API_LIMITS;

const color = (which: string) => Type.String({ pattern: HEX_COLOR_PATTERN, description: `#rrggbb; when omitted, the preset's ${which}` });

/** API.md part 4, POST /links/{id}/qr. Every field is optional; a request without a body means `{}`. */
export const QrBody = Type.Object(
  {
    preset: Type.Optional(StringEnum(PRESET_NAMES, { default: QR_DEFAULTS.preset })),
    size: Type.Optional(Type.Integer({ minimum: bounds.minSize, maximum: bounds.maxSize, default: QR_DEFAULTS.size, description: 'Pixels per side' })),
    foreground: Type.Optional(color('foreground')),
    background: Type.Optional(color('background')),
    dots: Type.Optional(StringEnum(DOT_STYLES, { default: QR_DEFAULTS.dots })),
    corners: Type.Optional(StringEnum(CORNER_STYLES, { default: QR_DEFAULTS.corners, description: 'Shape of the three finder patterns' })),
    logoPng: Type.Optional(
      Type.String({
        maxLength: bounds.logoMaxLength,
        description: `data:image/png;base64,… of a PNG up to ${bounds.logoMaxSide}×${bounds.logoMaxSide}, embedded centred; never fetched or stored`,
      }),
    ),
  },
  {
    additionalProperties: false,
    // Its one bounded string, the logo, is a base64 data URL: ASCII, or refused.
    [CODE_UNIT_LENGTHS]: true,
    description: `The background must be light (relative luminance ≥ ${MIN_BACKGROUND_LUMINANCE}), the foreground darker, and their WCAG contrast ratio ≥ ${bounds.minContrast}.`,
  },
);
export type QrBodyInput = Static<typeof QrBody>;

/** 200 of the QR export: the SVG document itself, not JSON. */
export const QrSvg = {
  description: 'The QR code as an SVG document (quiet zone included; `size` wide, and as tall unless a frame or printed short URL makes it taller)',
  headers: {
    'Content-Security-Policy': {
      type: 'string',
      const: "default-src 'none'; img-src data:",
      description: 'Nothing in the document may run or load anything but its embedded logo.',
    },
    'X-Content-Type-Options': { type: 'string', const: 'nosniff' },
  },
  content: { 'image/svg+xml': { schema: Type.String({ description: 'SVG document' }) } },
};
