import { Type, type Static } from '@sinclair/typebox';
import { API_LIMITS } from '../platform/api-limits.js';
import { QrBody } from './qr-schemas.js';

const { qr: bounds } = API_LIMITS;

/**
 * A link's saved QR design: everything the export body takes, plus what only a printed piece needs.
 * Omitted fields take the export's defaults. Website endpoints, documented like the others.
 */
export const QrDesignBody = Type.Object(
  {
    ...QrBody.properties,
    callToAction: Type.Optional(
      Type.String({
        maxLength: bounds.callToActionMaxLength,
        default: '',
        description:
          'Text in a frame around the code ("Scan for the menu"); empty: no frame. Latin letters, digits and common punctuation (the characters the frame can draw as outlines).',
      }),
    ),
    printShortUrl: Type.Optional(Type.Boolean({ default: false, description: 'Print the short URL under the code' })),
    printSizeCm: Type.Optional(
      Type.Number({
        minimum: bounds.printMinCm,
        maximum: bounds.printMaxCm,
        default: bounds.defaultPrintCm,
        description: 'Width of the printed piece in centimetres (the website’s PDF and 300 dpi PNG)',
      }),
    ),
  },
  { additionalProperties: false, description: QrBody.description },
);
export type QrDesignInput = Static<typeof QrDesignBody>;

export const QrDesignAnswer = Type.Object(
  {
    design: QrDesignBody,
    saved: Type.Boolean({ description: 'false: nothing saved yet, the design shown is the defaults' }),
    updatedAt: Type.Optional(Type.Integer({ description: 'Unix milliseconds of the last save' })),
  },
  { additionalProperties: false },
);
export type QrDesignAnswerType = Static<typeof QrDesignAnswer>;
