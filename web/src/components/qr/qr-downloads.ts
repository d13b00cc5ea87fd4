import { pixelsAt300Dpi, pointsOf, PRINT_DPI } from './print-size.js';
import { withDpi } from './png-dpi.js';
import { canvasToPng, imageToCanvas, scanCanvas, svgToCanvas } from './render-qr-image.js';
import { ScanMismatch } from './scan-mismatch.js';
import { drawingToCanvas, svgDrawing } from './svg-drawing.js';

/** Widest picture a scan check reads: a 50 cm PNG at 300 dpi is 5906 pixels, far more than a decoder needs. */
const CHECK_MAX_WIDTH = 2048;

async function expectScan(canvas: HTMLCanvasElement, qrUrl: string, format: string): Promise<void> {
  const text = await scanCanvas(canvas);
  if (text !== qrUrl) throw new ScanMismatch(format, text);
}

/** The API's SVG as it is offered: drawn at its own size and read back first, as the preview is. */
export async function printSvg(svg: string, qrUrl: string): Promise<Blob> {
  await expectScan(await svgToCanvas(svg), qrUrl, 'SVG');
  return new Blob([svg], { type: 'image/svg+xml' });
}

/**
 * The PNG for print: the API's SVG drawn at 300 dpi of the print size, marked as 300 dpi, and read
 * back from the PNG file's own bytes before it is offered.
 */
export async function printPng(svg: string, printCm: number, qrUrl: string): Promise<Blob> {
  const png = withDpi(await canvasToPng(await svgToCanvas(svg, pixelsAt300Dpi(printCm))), PRINT_DPI);
  const bitmap = await createImageBitmap(png);
  try {
    await expectScan(imageToCanvas(bitmap, Math.min(bitmap.width, CHECK_MAX_WIDTH)), qrUrl, 'PNG');
  } finally {
    bitmap.close();
  }
  return png;
}

/**
 * The vector PDF, one page at the print size: the API's SVG read into paths, those paths painted on a
 * canvas exactly as the PDF gets them and read back, then written with pdf-lib (loaded only now). The
 * browser offers scripts no PDF renderer, so the PDF file itself is decoded by the tests (pdftoppm).
 */
export async function printPdf(svg: string, printCm: number, qrUrl: string, title = `QR code for ${qrUrl}`): Promise<Blob> {
  const drawing = svgDrawing(svg);
  await expectScan(await drawingToCanvas(drawing, Math.min(drawing.width, CHECK_MAX_WIDTH)), qrUrl, 'PDF');
  const { drawingToPdf } = await import('./qr-pdf.js');
  const bytes = await drawingToPdf(drawing, pointsOf(printCm), title);
  return new Blob([bytes.slice().buffer], { type: 'application/pdf' });
}
