import { concatTransformationMatrix, drawSvgPath, PDFDocument, popGraphicsState, pushGraphicsState, rgb } from 'pdf-lib';
import { fittedImage, multiply, type Drawing, type Matrix } from './svg-drawing.js';

/**
 * A one-page vector PDF of the drawing, the page `widthPt` points wide and as tall as the drawing's
 * proportions: the quiet zone is part of the drawing, so it is part of the page. Colours go in as
 * DeviceRGB from their hex digits, so a #000000 foreground is exactly 0 0 0. Loaded on demand only
 * (a dynamic import): pdf-lib is larger than every page's own JavaScript.
 */
export async function drawingToPdf(drawing: Drawing, widthPt: number, title: string): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle(title);
  pdf.setCreator('shortlinks website');
  const k = widthPt / drawing.width;
  const pageHeight = drawing.height * k;
  const page = pdf.addPage([widthPt, pageHeight]);
  // SVG units, y downwards, to PDF points, y upwards.
  const toPage: Matrix = [k, 0, 0, -k, 0, pageHeight];
  for (const shape of drawing.shapes) {
    const [a, b, c, d, e, f] = multiply(toPage, shape.matrix);
    if (shape.kind === 'path') {
      // drawSvgPath flips y itself (scale 1, −1) before applying the matrix: flip it back here.
      page.pushOperators(
        pushGraphicsState(),
        concatTransformationMatrix(a, b, -c, -d, e, f),
        ...drawSvgPath(shape.d, { x: 0, y: 0, scale: undefined, color: colour(shape.fill), borderColor: undefined, borderWidth: 0 }),
        popGraphicsState(),
      );
    } else {
      const image = await pdf.embedPng(shape.href);
      const box = fittedImage(shape, image.width, image.height);
      // An image fills the unit square, y upwards: place that square on the box, its top edge at box.y.
      page.pushOperators(pushGraphicsState(), concatTransformationMatrix(a, b, c, d, e, f));
      page.drawImage(image, { x: box.x, y: box.y + box.height, width: box.width, height: -box.height });
      page.pushOperators(popGraphicsState());
    }
  }
  return pdf.save();
}

function colour(hex: string) {
  const n = Number.parseInt(hex.slice(1), 16);
  return rgb(((n >> 16) & 0xff) / 255, ((n >> 8) & 0xff) / 255, (n & 0xff) / 255);
}
