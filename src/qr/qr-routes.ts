import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { UuidParams } from '../platform/http/common-schemas.js';
import { negotiatedEncoding } from '../platform/http/encodings.js';
import { GENERAL, errorResponses } from '../platform/http/openapi-responses.js';
import { tags } from '../platform/http/openapi-document.js';
import { LINK_EXPIRED, LINK_NOT_FOUND } from '../links/link-docs.js';
import { QrBody, QrSvg } from './qr-schemas.js';
import { QrDesignAnswer, QrDesignBody } from './design-schemas.js';
import type { QrService } from './qr-service.js';
import type { RenderedQr } from './render-pool.js';

/** Requests that came without a body: they export the saved design (qr-service.ts). */
const withoutBody = new WeakSet<FastifyRequest>();

/** Every field is optional, so a POST without any body is a valid export rather than a 400. */
async function emptyBodyIsEmptyObject(request: FastifyRequest): Promise<void> {
  if (request.body !== undefined) return;
  withoutBody.add(request);
  request.body = {};
}

const REFUSALS = {
  invalid_request: `${GENERAL.invalid_request} Also: colours that break the colour rules (body description), or a \`logoPng\` that is not a PNG data URL of at most 512×512 pixels.`,
  not_found: LINK_NOT_FOUND,
  request_conflict: 'The link is not active (paused, suspended or deleted).',
  link_expired: LINK_EXPIRED,
};

const DESIGN_REFUSALS = { ...REFUSALS, invalid_request: `${REFUSALS.invalid_request} Or a call to action with a character the frame cannot draw.` };

/**
 * The document is ours and holds no script, but it is served from the API's origin: if it is ever
 * opened directly, nothing in it may run or load anything but its own embedded logo. It comes
 * compressed as the request accepts (the render worker compressed it), so these routes opt out of
 * the compression plugin (`compress: false`).
 */
function sendSvg(reply: FastifyReply, { bytes, encoding }: RenderedQr): FastifyReply {
  if (encoding) reply.header('content-encoding', encoding);
  return reply
    .type('image/svg+xml')
    .header('vary', 'accept-encoding')
    .header('content-security-policy', "default-src 'none'; img-src data:")
    .header('x-content-type-options', 'nosniff')
    .send(bytes);
}

export const qrRoutes: FastifyPluginAsyncTypebox<{ qr: QrService }> = async (app, { qr }) => {
  app.post(
    '/links/:id/qr',
    {
      config: { auth: { scope: 'qr:read', trialToken: true } },
      compress: false,
      preValidation: emptyBodyIsEmptyObject,
      schema: {
        operationId: 'exportLinkQr',
        tags: tags('qr'),
        summary: 'Export the link’s tracked QR code (its /q/ URL) as a styled SVG; no credits',
        description:
          'With a key of the link’s account or the link’s own trial token, for an active link. A request with a body draws that body, every omitted field at its default (even `{}`). A request without any body draws the design saved with the link (`PUT /links/{id}/qr/design`: its frame and printed short URL included), or the defaults when none is saved. Error correction and the quiet zone are the renderer’s; no image is ever fetched. Without a frame or printed short URL, width, height and viewBox equal `size`; with them, the file is `size` wide and taller.',
        params: UuidParams,
        body: QrBody,
        'x-body-optional': true,
        response: { 200: QrSvg, ...errorResponses(REFUSALS) },
      },
    },
    async (request, reply) => {
      const body = withoutBody.has(request) ? undefined : request.body;
      return sendSvg(reply, await qr.export(request.principal, request.params.id, body, negotiatedEncoding(request.headers)));
    },
  );

  app.post(
    '/links/:id/qr/design/preview',
    {
      config: { auth: { scope: 'qr:read', trialToken: true } },
      compress: false,
      schema: {
        operationId: 'previewLinkQrDesign',
        tags: tags('qr'),
        summary: 'Draw a QR design as it would be saved, without saving it (the website’s preview); no credits',
        description:
          'The SVG a body-less export would answer once this design is saved (`PUT /links/{id}/qr/design`): its frame and printed short URL included. Nothing is stored. Refused as the save refuses.',
        params: UuidParams,
        body: QrDesignBody,
        response: { 200: QrSvg, ...errorResponses(DESIGN_REFUSALS) },
      },
    },
    async (request, reply) => sendSvg(reply, await qr.preview(request.principal, request.params.id, request.body, negotiatedEncoding(request.headers))),
  );

  app.get(
    '/links/:id/qr/design',
    {
      config: { auth: { scope: 'qr:read', trialToken: true } },
      schema: {
        operationId: 'getLinkQrDesign',
        tags: tags('qr'),
        summary: 'The QR design saved with the link (the website’s “Save design”); no credits',
        description: 'The design every export without a body draws. `saved` is false, and `design` holds the defaults, until one is saved.',
        params: UuidParams,
        response: { 200: QrDesignAnswer, ...errorResponses({ not_found: LINK_NOT_FOUND, link_expired: LINK_EXPIRED }) },
      },
    },
    async (request) => qr.design(request.principal, request.params.id),
  );

  app.put(
    '/links/:id/qr/design',
    {
      config: { auth: { scope: 'links:write', trialToken: true } },
      schema: {
        operationId: 'saveLinkQrDesign',
        tags: tags('qr'),
        summary: 'Save the link’s QR design, used by every later export without a body; no credits',
        description:
          'Replaces the saved design. The design is drawn once before it is kept, so one the export would refuse is refused here with the same 400. Omitted fields are saved at their defaults. Saving the same design again is harmless (the request is idempotent by nature).',
        params: UuidParams,
        body: QrDesignBody,
        response: {
          200: QrDesignAnswer,
          ...errorResponses(DESIGN_REFUSALS),
        },
      },
    },
    async (request) => qr.save(request.principal, request.params.id, request.body),
  );
};
