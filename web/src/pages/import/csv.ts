/** A CSV text that cannot be read, with the line where reading failed. */
export class CsvError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

const DELIMITERS = [',', ';', '\t'] as const;

/**
 * The records of a CSV text (RFC 4180): cells in double quotes may hold the delimiter, line breaks and
 * doubled quotes; lines end in CRLF, LF or CR; a byte order mark is skipped. The delimiter is the
 * comma, or the semicolon or tab when the first line holds more of those (spreadsheets in many
 * languages save with semicolons). Lines with nothing on them are left out.
 */
export function parseCsv(text: string): string[][] {
  const source = text.replace(/^\uFEFF/, '');
  const delimiter = delimiterOf(source);
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let line = 1;
  let i = 0;
  const endCell = () => {
    record.push(cell);
    cell = '';
  };
  const endRecord = () => {
    endCell();
    if (record.some((value) => value.trim() !== '')) records.push(record);
    record = [];
  };
  while (i < source.length) {
    const char = source[i]!;
    if (char === '"' && cell.trim() === '') {
      const opened = line;
      i++;
      cell = '';
      for (;;) {
        if (i >= source.length) throw new CsvError(`A quoted cell that starts on line ${opened} is never closed.`, opened);
        const inner = source[i]!;
        if (inner === '"' && source[i + 1] === '"') [cell, i] = [cell + '"', i + 2];
        else if (inner === '"') break;
        else [cell, i, line] = [cell + inner, i + 1, inner === '\n' ? line + 1 : line];
      }
      i++;
      // Spaces may follow the closing quote; anything else is read on as part of the cell.
      continue;
    }
    if (char === delimiter) endCell();
    else if (char === '\r' || char === '\n') {
      endRecord();
      if (char === '\r' && source[i + 1] === '\n') i++;
      line++;
    } else cell += char;
    i++;
  }
  if (cell !== '' || record.length > 0) endRecord();
  return records;
}

/** The delimiter the first line uses most, outside quotes; the comma when it holds none. */
function delimiterOf(text: string): string {
  const firstLine = text.split(/\r\n|\r|\n/, 1)[0]!.replace(/"[^"]*"/g, '');
  let best: string = ',';
  let most = 0;
  for (const delimiter of DELIMITERS) {
    const count = firstLine.split(delimiter).length - 1;
    if (count > most) [best, most] = [delimiter, count];
  }
  return best;
}
