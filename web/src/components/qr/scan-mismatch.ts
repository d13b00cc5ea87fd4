/**
 * A file that was made but did not scan to the link's QR URL, so it is not offered. A module of its
 * own, without the drawing code, so that a page can say why a file was refused without loading it.
 */
export class ScanMismatch extends Error {
  constructor(
    readonly format: string,
    readonly text: string | null,
  ) {
    super(`the ${format} does not scan`);
  }
}

/** What the file read as, in words: "it reads as …, not …" or "no QR code could be read from it, not …". */
export function mismatchWords(error: ScanMismatch, qrUrl: string): string {
  const read = error.text === null ? 'no QR code could be read from it' : `it reads as ${error.text}`;
  return `${read}, not ${qrUrl}`;
}
