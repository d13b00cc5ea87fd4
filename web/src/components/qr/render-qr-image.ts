/**
 * The API's SVG drawn onto a canvas, as a phone camera or a printer would see it: the pixels the PNG
 * download is made of and the scan check reads. `width` defaults to the SVG's own; the height keeps
 * its proportions (a frame or a printed short URL makes the file taller than wide).
 */
export async function svgToCanvas(svg: string, width?: number): Promise<HTMLCanvasElement> {
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    return imageToCanvas(image, width ?? image.naturalWidth);
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** An image (or bitmap) drawn `width` pixels wide, its proportions kept. */
export function imageToCanvas(image: CanvasImageSource & { width: number; height: number }, width: number): HTMLCanvasElement {
  const [w, h] = image instanceof HTMLImageElement ? [image.naturalWidth, image.naturalHeight] : [image.width, image.height];
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(width);
  canvas.height = Math.round((width * h) / w);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no 2d canvas');
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  return canvas;
}

/** The width and height the API's SVG declares on its root element. */
export function svgSize(svg: string): { width: number; height: number } | undefined {
  const match = /^<svg [^>]*width="(\d+)" height="(\d+)"/.exec(svg);
  return match ? { width: Number(match[1]), height: Number(match[2]) } : undefined;
}

export function canvasToPng(canvas: HTMLCanvasElement): Promise<Blob> {
  return new Promise((resolve, reject) => canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('no PNG'))), 'image/png'));
}

/**
 * What the canvas decodes to with jsQR, or null when no code is found. The decoder loads on first use
 * only (a dynamic import), so no other page carries it.
 */
export async function scanCanvas(canvas: HTMLCanvasElement): Promise<string | null> {
  const { default: jsQR } = await import('jsqr');
  const context = canvas.getContext('2d', { willReadFrequently: true });
  if (!context) return null;
  const { data, width, height } = context.getImageData(0, 0, canvas.width, canvas.height);
  return jsQR(data, width, height, { inversionAttempts: 'dontInvert' })?.data ?? null;
}

/** Saves a Blob as a file through a temporary link with `download`. */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = filename;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  // The download has started from the URL by now; revoking it later keeps slow browsers safe.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
