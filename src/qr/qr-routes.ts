import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../platform/errors.js';
import { renderQr } from './render-qr.js';
import { UuidParams } from '../platform/http/common-schemas.js';
import { GENERAL, errorResponses } from '../platform/http/openapi-responses.js';
import { tags } from '../platform/http/openapi-document.js';
import { LINK_EXPIRED, LINK_NOT_FOUND } from '../links/link-docs.js';
import { QrBody, QrSvg } from './qr-schemas.js';
import type { Services } from '../platform/http/services.js';

/** Every field is optional, so a POST without any body is the default export rather than a 400. */
async function emptyBodyIsEmptyObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined) request.body = {};
}

export const qrRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { links, render } = services;

  app.post(
    '/links/:id/qr',
    {
      config: { auth: { scope: 'qr:read', trialToken: true } },
      preValidation: emptyBodyIsEmptyObject,
      schema: {
        operationId: 'exportLinkQr',
        tags: tags('qr'),
        summary: 'Export the link’s tracked QR code (its /q/ URL) as a styled SVG; no credits',
        description:
          'With a key of the link’s account or the link’s own trial token, for an active link. The body may be omitted (every field has a default). Error correction and the quiet zone are the renderer’s; no image is ever fetched or stored.',
        params: UuidParams,
        body: QrBody,
        'x-body-optional': true,
        response: {
          200: QrSvg,
          ...errorResponses({
            invalid_request: `${GENERAL.invalid_request} Also: colours that break the colour rules (body description), or a \`logoPng\` that is not a PNG data URL of at most 512×512 pixels.`,
            not_found: LINK_NOT_FOUND,
            request_conflict: 'The link is not active (paused, suspended or deleted).',
            link_expired: LINK_EXPIRED,
          }),
        },
      },
    },
    async (request, reply) => {
      const link = await links.access(request.principal, request.params.id, 'qr:read');
      if (link.status !== 'active') throw new AppError('request_conflict');
      const svg = renderQr(render(link).qrUrl, request.body);
      // The document is ours and holds no script, but it is served from the API's origin: if it is
      // ever opened directly, nothing in it may run or load anything but its own embedded logo.
      return reply
        .type('image/svg+xml')
        .header('content-security-policy', "default-src 'none'; img-src data:")
        .header('x-content-type-options', 'nosniff')
        .send(svg);
    },
  );
};
