/**
 * A canvas's PNG says nothing of its resolution, so print software takes it for 72 or 96 dpi and
 * prints a 300 dpi code three or four times too large. A pHYs chunk (pixels per metre) after the
 * header tells it the size it was made for.
 */
export function withDpi(png: Blob, dpi: number): Blob {
  // Signature (8 bytes), then IHDR: length (4), type (4), 13 bytes of data, CRC (4).
  const afterHeader = 8 + 4 + 4 + 13 + 4;
  const perMetre = Math.round(dpi / 0.0254);
  const data = new Uint8Array(9);
  const view = new DataView(data.buffer);
  view.setUint32(0, perMetre);
  view.setUint32(4, perMetre);
  data[8] = 1; // the unit is the metre
  return new Blob([png.slice(0, afterHeader), chunk('pHYs', data), png.slice(afterHeader)], { type: 'image/png' });
}

function chunk(type: string, data: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(
    [...type].map((ch) => ch.charCodeAt(0)),
    4,
  );
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

let table: Uint32Array | undefined;

/** CRC-32 as PNG computes it (ISO 3309), over a chunk's type and data. */
function crc32(bytes: Uint8Array): number {
  table ??= Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  let crc = 0xffffffff;
  for (const byte of bytes) crc = table[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
