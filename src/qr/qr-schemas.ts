import { Type, type Static } from '@sinclair/typebox';
import { HEX_COLOR_PATTERN, PRESET_NAMES } from './colors.js';
import { MAX_LOGO_URL_LENGTH } from './png-logo.js';
import { MAX_QR_SIZE, MIN_QR_SIZE, QR_DEFAULTS } from './render-qr.js';
import { CORNER_STYLES, DOT_STYLES } from './shapes.js';
import { StringEnum } from '../platform/http/common-schemas.js';

const color = (which: string) =>
  Type.String({ pattern: HEX_COLOR_PATTERN, description: `#rrggbb; when omitted, the preset's ${which}` });

/** API.md part 4, POST /links/{id}/qr. Every field is optional; a request without a body means `{}`. */
export const QrBody = Type.Object(
  {
    preset: Type.Optional(StringEnum(PRESET_NAMES, { default: QR_DEFAULTS.preset })),
    size: Type.Optional(Type.Integer({ minimum: MIN_QR_SIZE, maximum: MAX_QR_SIZE, default: QR_DEFAULTS.size, description: 'Pixels per side' })),
    foreground: Type.Optional(color('foreground')),
    background: Type.Optional(color('background')),
    dots: Type.Optional(StringEnum(DOT_STYLES, { default: QR_DEFAULTS.dots })),
    corners: Type.Optional(StringEnum(CORNER_STYLES, { default: QR_DEFAULTS.corners, description: 'Shape of the three finder patterns' })),
    logoPng: Type.Optional(
      Type.String({
        maxLength: MAX_LOGO_URL_LENGTH,
        description: 'data:image/png;base64,… of a PNG up to 512×512, embedded centred; never fetched or stored',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'The background must be light (relative luminance ≥ 0.4), the foreground darker, and their WCAG contrast ratio ≥ 4.5.',
  },
);
export type QrBodyInput = Static<typeof QrBody>;

/** 200 of the QR export: the SVG document itself, not JSON. */
export const QrSvg = {
  description: 'The QR code as an SVG document (quiet zone included; width, height and viewBox equal `size`)',
  content: { 'image/svg+xml': { schema: Type.String({ description: 'SVG document' }) } },
};
