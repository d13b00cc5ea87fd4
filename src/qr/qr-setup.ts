import type { FastifyInstance } from 'fastify';
import type { Database } from '../platform/database/database.js';
import type { Clock } from '../platform/time.js';
import type { LinkService } from '../links/link-service.js';
import type { LinkRecord } from '../links/ports.js';
import type { LinkResponse } from '../links/link-schemas.js';
import { KyselyQrDesignStore } from './design-store.js';
import { RenderPool } from './render-pool.js';
import { QrService } from './qr-service.js';
import { qrRoutes } from './qr-routes.js';

export interface QrDeps {
  database: Database;
  links: LinkService;
  render: (link: LinkRecord) => LinkResponse;
  now: Clock;
}

/** QR exports and saved designs: the service, its routes, and the render workers, stopped with the app. */
export function setUpQr(app: FastifyInstance, deps: QrDeps) {
  const pool = new RenderPool();
  app.addHook('onClose', async () => pool.close());
  const service = new QrService({ links: deps.links, designs: new KyselyQrDesignStore(deps.database.db), pool, render: deps.render, now: deps.now });
  return {
    service,
    routes: async (api: FastifyInstance) => api.register(qrRoutes, { qr: service }),
  };
}
