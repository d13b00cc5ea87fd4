import zlib from 'node:zlib';

/** A tiny PNG encoder for tests (8-bit RGBA, no interlace), independent of the code under test. */

/** One PNG chunk: length, type, data and the CRC over type and data. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface PngOptions {
  /** Bytes of a private ancillary chunk (`prIv`), to reach an exact file size. */
  padding?: number;
}

/** Encodes `pixel(x, y) → [r, g, b, a]` as a PNG file. */
export function encodePng(width: number, height: number, pixel: (x: number, y: number) => number[], options: PngOptions = {}): Buffer {
  const raw = Buffer.alloc(height * (1 + width * 4));
  for (let y = 0; y < height; y++) {
    const row = y * (1 + width * 4);
    for (let x = 0; x < width; x++) raw.set(pixel(x, y), row + 1 + x * 4);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const padding = options.padding ? [pngChunk('prIv', Buffer.alloc(options.padding, 0x2a))] : [];
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), ...padding, pngChunk('IDAT', zlib.deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}

export function pngDataUrl(png: Buffer): string {
  return `data:image/png;base64,${png.toString('base64')}`;
}

/** A logo that looks like one: a dark disc with a light ring on a transparent ground. */
export function logoPng(side: number, options: PngOptions = {}): Buffer {
  const c = (side - 1) / 2;
  return encodePng(
    side,
    side,
    (x, y) => {
      const r = Math.hypot(x - c, y - c) / (side / 2);
      if (r > 1) return [0, 0, 0, 0];
      return r > 0.7 && r < 0.8 ? [255, 200, 40, 255] : [20, 40, 160, 255];
    },
    options,
  );
}

/** The data URL of a valid logo PNG exactly `length` characters long (length − 22 must be a multiple of 4). */
export function logoDataUrlOfLength(side: number, length: number): string {
  const base = logoPng(side).length;
  const bytes = ((length - 'data:image/png;base64,'.length) / 4) * 3;
  const url = pngDataUrl(logoPng(side, { padding: bytes - base - 12 }));
  if (url.length !== length) throw new Error(`cannot make a logo URL of ${length} characters`);
  return url;
}
