import { AppError } from '../platform/errors.js';
import type { Clock } from '../platform/time.js';
import type { Principal } from '../platform/auth/principal.js';
import type { LinkRecord } from '../links/ports.js';
import type { LinkResponse } from '../links/link-schemas.js';
import type { LinkService } from '../links/link-service.js';
import type { QrDesignAnswerType, QrDesignInput } from './design-schemas.js';
import type { QrDesignStore } from './design-store.js';
import type { QrFrame } from './frame.js';
import type { Encoding } from '../platform/http/encodings.js';
import type { RenderedQr, RenderPool } from './render-pool.js';
import type { QrOptions } from './render-qr.js';

export interface QrServiceDeps {
  links: Pick<LinkService, 'access'>;
  designs: QrDesignStore;
  pool: RenderPool;
  render: (link: LinkRecord) => LinkResponse;
  now: Clock;
}

/** The short URL as printed under a code: without its scheme, which nobody types. */
export function printedUrl(shortUrl: string): string {
  return shortUrl.replace(/^https?:\/\//, '');
}

/** The export options and the frame of a saved design, for the link whose short URL is given. */
export function designParts(design: QrDesignInput, shortUrl: string): { options: QrOptions; frame: QrFrame } {
  const { callToAction, printShortUrl, printSizeCm: _printSize, ...options } = design;
  return { options, frame: { ...(callToAction ? { callToAction } : {}), ...(printShortUrl ? { caption: printedUrl(shortUrl) } : {}) } };
}

/**
 * QR exports and saved designs. The rule (docs/adr/0095): an export request with a body draws that
 * body, its omitted fields at their defaults, as API.md says; one without a body draws the link's
 * saved design, frame and printed short URL included, or the defaults when none is saved.
 */
export class QrService {
  constructor(private readonly deps: QrServiceDeps) {}

  /** The export's SVG, compressed with `encoding` when given (the render worker compresses it, not the event loop). */
  async export(principal: Principal, id: string, body: QrOptions | undefined, encoding?: Encoding): Promise<RenderedQr> {
    const link = await this.activeLink(principal, id, 'qr:read');
    if (body !== undefined) return this.deps.pool.render(this.deps.render(link).qrUrl, body, {}, encoding);
    // No design saved: the defaults, which an empty design draws.
    return this.draw(link, (await this.deps.designs.get(link.id))?.design ?? {}, encoding);
  }

  async design(principal: Principal, id: string): Promise<QrDesignAnswerType> {
    const link = await this.deps.links.access(principal, id, 'qr:read');
    const saved = await this.deps.designs.get(link.id);
    return saved ? { design: saved.design, saved: true, updatedAt: saved.updatedAt } : { design: {}, saved: false };
  }

  /** A design drawn as a body-less export would draw it once saved, without saving it (the website's preview). */
  async preview(principal: Principal, id: string, design: QrDesignInput, encoding?: Encoding): Promise<RenderedQr> {
    return this.draw(await this.activeLink(principal, id, 'qr:read'), design, encoding);
  }

  /** Saves a design after drawing it once: a design that cannot be exported is refused, not kept. */
  async save(principal: Principal, id: string, design: QrDesignInput): Promise<QrDesignAnswerType> {
    const link = await this.activeLink(principal, id, 'links:write');
    await this.draw(link, design);
    const now = this.deps.now();
    await this.deps.designs.put(link.id, design, now);
    return { design, saved: true, updatedAt: now };
  }

  private draw(link: LinkRecord, design: QrDesignInput, encoding?: Encoding): Promise<RenderedQr> {
    const { qrUrl, shortUrl } = this.deps.render(link);
    const { options, frame } = designParts(design, shortUrl);
    return this.deps.pool.render(qrUrl, options, frame, encoding);
  }

  private async activeLink(principal: Principal, id: string, scope: 'qr:read' | 'links:write'): Promise<LinkRecord> {
    const link = await this.deps.links.access(principal, id, scope);
    if (link.status !== 'active') throw new AppError('request_conflict');
    return link;
  }
}
