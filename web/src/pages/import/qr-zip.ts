import { strToU8, zipSync, type Zippable } from 'fflate';
import { api, ApiError, apiBlob } from '../../api/client.js';
import { canvasToPng, saveFile, svgToCanvas } from '../../components/qr/render-qr-image.js';
import { API_LIMITS } from '../../../../src/platform/api-limits.js';
import type { QrDesignAnswerType } from '../../../../src/qr/design-schemas.js';
import type { MadeLink } from './import-store.js';
import { patiently } from './patience.js';
import { fileNames } from './qr-names.js';

/** A link's code as the API drew it in the link's saved design. */
export interface DrawnCode {
  link: MadeLink;
  svg: string;
  design: QrDesignAnswerType['design'];
}

/** Makes one file of a code; the ZIP holds one file per maker for each link, named by the link's title. */
export interface QrFileMaker {
  extension: string;
  /** Files that are compressed already (PNG, PDF) are stored as they are. */
  stored: boolean;
  make: (code: DrawnCode) => Promise<Uint8Array>;
}

const SVG_FILE: QrFileMaker = { extension: 'svg', stored: false, make: async ({ svg }) => strToU8(svg) };

/** The SVG drawn by the browser at the design's size, as the link page's "Download PNG" does. */
const PNG_FILE: QrFileMaker = {
  extension: 'png',
  stored: true,
  make: async ({ svg, design }) => {
    const png = await canvasToPng(await svgToCanvas(svg, design.size ?? API_LIMITS.qr.defaultSize));
    return new Uint8Array(await png.arrayBuffer());
  },
};

/** The files of each code in the ZIP; a PDF maker is one more entry here. */
export const QR_FILE_MAKERS: readonly QrFileMaker[] = [SVG_FILE, PNG_FILE];

export interface ZipEvents {
  progress: (done: number, total: number) => void;
  waiting: (seconds: number | undefined) => void;
}

/** A link whose code could not be drawn (paused since, say), left out of the ZIP. */
export interface LeftOut {
  link: MadeLink;
  error: unknown;
}

/**
 * Draws every link's code in its saved design (the API's SVG: GET the design, then export it) and
 * saves them, made into files by `makers`, as one ZIP download. Links whose code cannot be drawn are
 * left out and named; a failure of the service stops it all.
 */
export async function downloadQrZip(links: MadeLink[], events: ZipEvents, makers: readonly QrFileMaker[] = QR_FILE_MAKERS): Promise<LeftOut[]> {
  const files: Zippable = {};
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
    for (const maker of makers) files[`${names[i]}.${maker.extension}`] = [await maker.make(code), { level: maker.stored ? 0 : 6 }];
  }
  events.progress(links.length, links.length);
  if (Object.keys(files).length > 0) saveFile(new Blob([zipSync(files)], { type: 'application/zip' }), 'qr-codes.zip');
  return leftOut;
}

/**
 * The saved design's export fields, sent as the export's body. A body-less export would draw the
 * frame and the printed short URL too, but a session's POST must carry JSON (the CSRF check).
 */
async function draw(link: MadeLink, events: ZipEvents): Promise<DrawnCode> {
  const { design } = await patiently(() => api<QrDesignAnswerType>('GET', `/links/${link.id}/qr/design`), events.waiting);
  const { preset, size, foreground, background, dots, corners, logoPng } = design;
  const body = { preset, size, foreground, background, dots, corners, logoPng };
  const svg = await (await patiently(() => apiBlob('POST', `/links/${link.id}/qr`, body), events.waiting)).text();
  return { link, svg, design };
}

/** The API refused this link's code (gone, paused, suspended): the others can still be drawn. */
const isRefusal = (error: unknown): boolean => error instanceof ApiError && [404, 409, 410].includes(error.status);
