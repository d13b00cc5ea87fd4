import { API_LIMITS } from '../../../../src/platform/api-limits.js';
import { CsvError, parseCsv } from './csv.js';

/** What one row of an import says, each cell as written (trimmed). */
export interface SourceRow {
  /** Counted from the first line after the header, as the page shows it. */
  row: number;
  destination: string;
  title: string;
  tags: string;
  alias: string;
  utmSource: string;
  utmMedium: string;
  utmCampaign: string;
}

type Column = Exclude<keyof SourceRow, 'row'>;

export const MAX_ROWS = API_LIMITS.links.importMaxRows;

/**
 * Header names, compared without case, spaces, underscores or hyphens. Ours first
 * (`destination,title,tags,alias` and the UTM columns); then Bitly's exports (`long_url`, `Destination
 * URL`, `title`, `tags`, `custom_bitlinks` or `Custom link`: a back-half becomes the alias; the random
 * `link` is not one) and Shlink's (`longUrl`, `title`, `tags` separated by `|`, `shortCode`).
 */
const HEADERS: Record<string, Column> = {
  destination: 'destination',
  destinationurl: 'destination',
  longurl: 'destination',
  url: 'destination',
  target: 'destination',
  title: 'title',
  tags: 'tags',
  alias: 'alias',
  shortcode: 'alias',
  customlink: 'alias',
  customlinks: 'alias',
  custombitlink: 'alias',
  custombitlinks: 'alias',
  utmsource: 'utmSource',
  utmmedium: 'utmMedium',
  utmcampaign: 'utmCampaign',
};

const headerKey = (name: string): string => name.toLowerCase().replace(/[\s_-]+/g, '');

export interface ReadRows {
  rows: SourceRow[];
  /** Header cells that name no column of ours, left out (`created_at`, `visits`, …). */
  ignored: string[];
}

/** The rows of a pasted or uploaded CSV, or a CsvError saying in plain words why they cannot be read. */
export function readRows(text: string): ReadRows {
  const [header, ...records] = parseCsv(text);
  if (!header) throw new CsvError('There are no rows: paste them, or choose a CSV file.', 1);
  const columns = header.map((name) => HEADERS[headerKey(name.trim())]);
  if (!columns.includes('destination')) {
    throw new CsvError('The first line must name the columns, destination (or long_url, longUrl) among them: destination,title,tags,alias', 1);
  }
  if (records.length === 0) throw new CsvError('There is a header but no rows under it.', 2);
  if (records.length > MAX_ROWS) throw new CsvError(`There are ${records.length} rows; an import takes at most ${MAX_ROWS}. Split the file.`, 1);
  const rows = records.map((cells, index) => {
    const row: SourceRow = { row: index + 1, destination: '', title: '', tags: '', alias: '', utmSource: '', utmMedium: '', utmCampaign: '' };
    columns.forEach((column, i) => {
      // The first column of a kind wins: a later one of the same kind is ignored.
      if (column && row[column] === '') row[column] = (cells[i] ?? '').trim();
    });
    return row;
  });
  const ignored = header.filter((name, i) => !columns[i] || columns.indexOf(columns[i]) !== i).map((name) => name.trim());
  return { rows, ignored: ignored.filter((name) => name !== '') };
}

/**
 * The alias a cell names: as written, or the back-half of a short URL (`bit.ly/spring-sale` →
 * `spring-sale`); of several custom links the first.
 */
export function aliasOf(cell: string): string {
  const first =
    cell
      .split(/[,|]/)
      .find((part) => part.trim() !== '')
      ?.trim() ?? '';
  const path = first.replace(/[?#].*$/, '').replace(/\/+$/, '');
  return path.includes('/') ? path.slice(path.lastIndexOf('/') + 1) : path;
}

/** Tags as the service keeps them, separated by commas; Shlink separates them with `|`. */
export function tagsOf(cell: string): string {
  return cell
    .split(/[,|]/)
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '')
    .join(', ');
}
