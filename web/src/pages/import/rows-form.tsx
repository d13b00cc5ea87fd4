import { useId, useState } from 'preact/hooks';
import { Submit, submitted } from '../../ui/form.js';
import { MAX_ROWS } from './columns.js';
import type { CsvError } from './csv.js';

/** Larger than 500 rows of any sensible CSV: refused before it is read. */
const LARGEST_FILE_BYTES = 2 * 1024 * 1024;

interface RowsFormProps {
  text: string;
  onText: (text: string) => void;
  unreadable?: CsvError;
  busy: boolean;
  onCheck: () => void;
}

/** "Rows" to paste into, or "CSV file" whose text is put there, and "Check rows". */
export function RowsForm({ text, onText, unreadable, busy, onCheck }: RowsFormProps) {
  const id = useId();
  const [fileError, setFileError] = useState<string>();
  const chosen = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    if (file.size > LARGEST_FILE_BYTES) {
      setFileError(`The file is larger than 2 MB; an import takes at most ${MAX_ROWS} rows.`);
      return;
    }
    setFileError(undefined);
    onText(await fileText(file));
  };
  const rowsDescription = [unreadable ? `${id}-rows-error` : '', `${id}-rows-hint`].filter(Boolean).join(' ');
  return (
    <form class="import-form" onSubmit={submitted(onCheck)}>
      <div class="field">
        <label for={`${id}-rows`}>Rows</label>
        <textarea
          id={`${id}-rows`}
          name="rows"
          rows={10}
          spellcheck={false}
          autoComplete="off"
          value={text}
          onInput={(e) => onText(e.currentTarget.value)}
          aria-describedby={rowsDescription}
          aria-invalid={unreadable ? true : undefined}
          placeholder={'destination,title,tags,alias\nhttps://example.com/menu,Menu card,print,menu'}
        />
        {unreadable && (
          <p class="field-error" id={`${id}-rows-error`}>
            {unreadable.message}
          </p>
        )}
        <p class="hint" id={`${id}-rows-hint`}>
          CSV with the column names on the first line: <code>destination,title,tags,alias</code>, and if you like <code>utm_source</code>,{' '}
          <code>utm_medium</code>, <code>utm_campaign</code> (added to the destination). Exports from Bitly and Shlink are read as they are. Up to {MAX_ROWS}{' '}
          rows.
        </p>
      </div>
      <div class="field">
        <label for={`${id}-file`}>CSV file</label>
        <input
          id={`${id}-file`}
          type="file"
          accept=".csv,.txt,text/csv,text/plain"
          onChange={(e) => void chosen(e.currentTarget)}
          aria-describedby={`${fileError ? `${id}-file-error ` : ''}${id}-file-hint`}
          aria-invalid={fileError ? true : undefined}
        />
        {fileError && (
          <p class="field-error" id={`${id}-file-error`}>
            {fileError}
          </p>
        )}
        <p class="hint" id={`${id}-file-hint`}>
          Its rows are put under Rows, to look over before they are checked.
        </p>
      </div>
      <Submit label="Check rows" busy={busy} busyText="Checking rows…" />
    </form>
  );
}

/** The file as text: UTF-8 (a byte order mark dropped), else Windows-1252, as older spreadsheets save CSV. */
async function fileText(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}
