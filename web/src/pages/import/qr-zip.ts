import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import { api, ApiError, apiBlob } from '../../api/client.js';
import { printPdf, printPng, printSvg } from '../../components/qr/qr-downloads.js';
import { saveFile } from '../../components/qr/render-qr-image.js';
import { API_LIMITS } from '../../../../src/platform/api-limits.js';
import type { QrDesignAnswerType } from '../../../../src/qr/design-schemas.js';
import type { MadeLink } from './import-store.js';
import { patiently } from './patience.js';
import { fileNames } from './qr-names.js';

/** A link's code as a body-less export draws it (its saved design, frame included), and the print size saved with it. */
interface DrawnCode {
  link: MadeLink;
  svg: string;
  printCm: number;
}

/** One file of a code, made and read back as the link page's download of it is; the ZIP holds one per maker for each link. */
interface QrFileMaker {
  extension: string;
  /** Files that are compressed already (PNG, PDF) are stored as they are. */
  stored: boolean;
  make: (code: DrawnCode) => Promise<Blob>;
}

const QR_FILE_MAKERS: readonly QrFileMaker[] = [
  { extension: 'svg', stored: false, make: ({ svg, link }) => printSvg(svg, link.qrUrl) },
  { extension: 'png', stored: true, make: ({ svg, printCm, link }) => printPng(svg, printCm, link.qrUrl) },
  { extension: 'pdf', stored: true, make: ({ svg, printCm, link }) => printPdf(svg, printCm, link.qrUrl) },
];

export interface ZipEvents {
  progress: (done: number, total: number) => void;
  waiting: (seconds: number | undefined) => void;
}

/**
 * What the ZIP leaves out: a link whose code could not be drawn (paused or gone since; no `file`), or
 * one file of a link that did not read back as its QR URL (`ScanMismatch`) or could not be made.
 */
export interface LeftOut {
  link: MadeLink;
  file?: string;
  error: unknown;
}

/**
 * Draws every link's code in its saved design and saves its SVG, 300 dpi PNG and PDF, named by the
 * link's title, as one ZIP download. A link whose code cannot be drawn, and a file that does not read
 * back as the link's QR URL, are left out and named; a failure of the service stops it all.
 */
export async function downloadQrZip(links: MadeLink[], events: ZipEvents): Promise<LeftOut[]> {
  const zip = new ZipParts();
  const leftOut: LeftOut[] = [];
  const names = fileNames(links);
  for (const [i, link] of links.entries()) {
    events.progress(i, links.length);
    let code: DrawnCode;
    try {
      code = await draw(link, events);
    } catch (error) {
      if (!isRefusal(error)) throw error;
      leftOut.push({ link, error });
      continue;
    }
    for (const maker of QR_FILE_MAKERS) {
      const file = `${names[i]}.${maker.extension}`;
      try {
        zip.add(file, new Uint8Array(await (await maker.make(code)).arrayBuffer()), maker.stored);
      } catch (error) {
        leftOut.push({ link, file, error });
      }
    }
  }
  events.progress(links.length, links.length);
  const blob = zip.end();
  if (blob) saveFile(blob, 'qr-codes.zip');
  return leftOut;
}

/**
 * The link's saved design (the defaults when none is saved: the answer's `design` is then `{}`), drawn
 * by the preview endpoint, which answers what a body-less export answers, frame and printed short URL
 * included. The export itself cannot be asked without a body: a session's POST must carry JSON (the
 * CSRF check), and a body draws the code alone. Each request waits out the rate limit (patience.ts).
 */
async function draw(link: MadeLink, events: ZipEvents): Promise<DrawnCode> {
  const path = `/links/${encodeURIComponent(link.id)}/qr/design`;
  const { design } = await patiently(() => api<QrDesignAnswerType>('GET', path), events.waiting);
  const svg = await (await patiently(() => apiBlob('POST', `${path}/preview`, design), events.waiting)).text();
  return { link, svg, printCm: design.printSizeCm ?? API_LIMITS.qr.defaultPrintCm };
}

/** The API refused this link's code (gone, paused, suspended): the others can still be drawn. */
const isRefusal = (error: unknown): boolean => error instanceof ApiError && [404, 409, 410].includes(error.status);

/**
 * A ZIP written as files are added: each file is compressed (or stored) into the archive's parts at
 * once, so the page never holds all the files and the archive side by side (a PNG of a 50 cm print is
 * 5906 pixels wide, and there may be 500 links).
 */
class ZipParts {
  private readonly parts: Uint8Array<ArrayBuffer>[] = [];
  private files = 0;
  private readonly zip = new Zip((error, chunk) => {
    if (error) throw error;
    this.parts.push(chunk);
  });

  add(name: string, bytes: Uint8Array, stored: boolean): void {
    const file = stored ? new ZipPassThrough(name) : new ZipDeflate(name, { level: 6 });
    this.zip.add(file);
    file.push(bytes, true);
    this.files++;
  }

  /** The archive, or undefined when no file was added. */
  end(): Blob | undefined {
    this.zip.end();
    return this.files > 0 ? new Blob(this.parts, { type: 'application/zip' }) : undefined;
  }
}
