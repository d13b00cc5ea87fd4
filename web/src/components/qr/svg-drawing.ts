/** An affine matrix as SVG and canvas write it: x' = a·x + c·y + e, y' = b·x + d·y + f. */
export type Matrix = readonly [a: number, b: number, c: number, d: number, e: number, f: number];

export type Shape =
  | { kind: 'path'; d: string; fill: string; matrix: Matrix }
  | { kind: 'image'; href: string; x: number; y: number; width: number; height: number; matrix: Matrix };

/** What the API's SVG draws, in its own pixel units, y downwards: the list the PDF is written from. */
export interface Drawing {
  width: number;
  height: number;
  shapes: Shape[];
}

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

/**
 * Reads the API's QR SVG (src/qr/render-qr.ts) into filled paths and images with their transforms.
 * The document holds only `rect`, `path`, `g` and `image` with solid fills; anything else is refused
 * rather than left out of a PDF without a word. Every path is filled with the non-zero rule, which is
 * all PDF's plain fill knows: the renderer draws its holes the other way round for that reason.
 */
export function svgDrawing(svg: string): Drawing {
  const root = new DOMParser().parseFromString(svg, 'image/svg+xml').documentElement;
  if (root.localName !== 'svg' || root.getElementsByTagName('parsererror').length > 0) throw new Error('not an SVG document');
  const width = Number(root.getAttribute('width'));
  const height = Number(root.getAttribute('height'));
  if (!(width > 0 && height > 0)) throw new Error('the SVG has no size');
  const shapes: Shape[] = [];
  collect(root, IDENTITY, shapes);
  return { width, height, shapes };
}

function collect(parent: Element, outer: Matrix, shapes: Shape[]): void {
  for (const element of Array.from(parent.children)) {
    const matrix = multiply(outer, ownMatrix(element));
    const number = (name: string) => Number(element.getAttribute(name) ?? 0);
    switch (element.localName) {
      case 'g':
        collect(element, matrix, shapes);
        break;
      case 'rect':
        shapes.push({
          kind: 'path',
          d: `M${number('x')} ${number('y')}h${number('width')}v${number('height')}h${-number('width')}z`,
          fill: fillOf(element),
          matrix,
        });
        break;
      case 'path':
        shapes.push({ kind: 'path', d: element.getAttribute('d') ?? '', fill: fillOf(element), matrix });
        break;
      case 'image': {
        const href = element.getAttribute('href') ?? element.getAttributeNS('http://www.w3.org/1999/xlink', 'href') ?? '';
        if (!href.startsWith('data:image/png;base64,')) throw new Error('an image in the SVG is not an embedded PNG');
        shapes.push({ kind: 'image', href, x: number('x'), y: number('y'), width: number('width'), height: number('height'), matrix });
        break;
      }
      default:
        throw new Error(`<${element.localName}> in the SVG cannot be drawn into a PDF`);
    }
  }
}

function fillOf(element: Element): string {
  const fill = element.getAttribute('fill') ?? '';
  if (!/^#[0-9a-fA-F]{6}$/.test(fill)) throw new Error(`fill "${fill}" is not a #rrggbb colour`);
  return fill;
}

/** The element's own `transform`, as the browser parses it. */
function ownMatrix(element: Element): Matrix {
  const m = (element as SVGGraphicsElement).transform?.baseVal.consolidate()?.matrix;
  return m ? [m.a, m.b, m.c, m.d, m.e, m.f] : IDENTITY;
}

/** `outer` applied after `inner`. */
export function multiply(outer: Matrix, inner: Matrix): Matrix {
  const [a, b, c, d, e, f] = outer;
  const [A, B, C, D, E, F] = inner;
  return [a * A + c * B, b * A + d * B, a * C + c * D, b * C + d * D, a * E + c * F + e, b * E + d * F + f];
}

/**
 * Where an image lands inside its box (SVG's default preserveAspectRatio, "xMidYMid meet": the whole
 * image, centred, its proportions kept), in the units of the box.
 */
export function fittedImage(shape: Extract<Shape, { kind: 'image' }>, naturalWidth: number, naturalHeight: number) {
  const k = Math.min(shape.width / naturalWidth, shape.height / naturalHeight);
  const [width, height] = [naturalWidth * k, naturalHeight * k];
  return { x: shape.x + (shape.width - width) / 2, y: shape.y + (shape.height - height) / 2, width, height };
}

/**
 * The drawing painted on a canvas `width` pixels wide, with the same paths, fills, rule and transforms
 * the PDF gets: the scan check of the PDF reads this, since the browser cannot render a PDF for a script.
 */
export async function drawingToCanvas(drawing: Drawing, width: number): Promise<HTMLCanvasElement> {
  const k = width / drawing.width;
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(width);
  canvas.height = Math.round(drawing.height * k);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no 2d canvas');
  for (const shape of drawing.shapes) {
    const [a, b, c, d, e, f] = multiply([k, 0, 0, k, 0, 0], shape.matrix);
    context.setTransform(a, b, c, d, e, f);
    if (shape.kind === 'path') {
      context.fillStyle = shape.fill;
      context.fill(new Path2D(shape.d), 'nonzero');
    } else {
      const image = new Image();
      image.src = shape.href;
      await image.decode();
      const box = fittedImage(shape, image.naturalWidth, image.naturalHeight);
      context.drawImage(image, box.x, box.y, box.width, box.height);
    }
  }
  return canvas;
}
