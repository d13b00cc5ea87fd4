import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../platform/errors.js';
import { renderQr } from './render-qr.js';
import { access } from '../platform/http/openapi.js';
import { COMMON_ERRORS, UuidParams, errorResponses } from '../platform/http/common-schemas.js';
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
      config: { trialToken: true },
      preValidation: emptyBodyIsEmptyObject,
      schema: {
        tags: ['qr'],
        summary: 'Export the link’s tracked QR code (its /q/ URL) as a styled SVG; no credits',
        ...access('qr:read', { trialToken: true }),
        params: UuidParams,
        body: QrBody,
        'x-body-optional': true,
        response: { 200: QrSvg, ...errorResponses(...COMMON_ERRORS, 410) },
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
