import type { Static } from '@sinclair/typebox';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { Quote } from '../../api/types.js';
import { useAction } from '../../ui/use-action.js';
import type { AliasCheckAnswer } from '../../../../src/links/link-schemas.js';
import { checkRows, withTaken, type CheckedRow } from './check-rows.js';
import { readRows } from './columns.js';
import { CsvError } from './csv.js';
import { createLinks, type RunStop } from './create-links.js';
import { loadImport, newImport, saveImport, type MadeLink, type SavedImport } from './import-store.js';
import { patiently } from './patience.js';
import { planRows, type PlannedRow } from './plan.js';
import type { LeftOut } from './qr-zip.js';

/** The rows as last checked: the text they came from, each row's plan, and what the quote said. */
export interface Checked {
  text: string;
  rows: PlannedRow[];
  quote: Quote;
  ignored: string[];
}

export interface Progress {
  what: 'create' | 'zip';
  done: number;
  total: number;
}

/**
 * The import page's state: the rows' text, the last check, and the runs of Create links and of the
 * ZIP, with the import kept in sessionStorage (import-store.ts) so that a reload goes on where it was.
 */
export function useImport() {
  const saved = useRef<SavedImport>(loadImport());
  const [text, setShownText] = useState(saved.current.text);
  const [checked, setChecked] = useState<Checked>();
  const [unreadable, setUnreadable] = useState<CsvError>();
  const [progress, setProgress] = useState<Progress>();
  const [waiting, setWaiting] = useState<number>();
  const [stop, setStop] = useState<RunStop>();
  const [ran, setRan] = useState(false);
  const [leftOut, setLeftOut] = useState<LeftOut[]>();
  const [, setChanges] = useState(0);

  // What is typed is kept as it is typed: a reload or a sign-in brings it back.
  const setText = (next: string) => {
    saved.current.text = next;
    saveImport(saved.current);
    setShownText(next);
  };

  const recheck = async (rowsText: string): Promise<Checked | undefined> => {
    let read;
    try {
      read = readRows(rowsText);
    } catch (error) {
      if (!(error instanceof CsvError)) throw error;
      setUnreadable(error);
      setChecked(undefined);
      return undefined;
    }
    setUnreadable(undefined);
    const { outcomes } = saved.current;
    const sent = (row: CheckedRow) => outcomes[row.key] !== undefined && outcomes[row.key]!.state !== 'failed';
    let rows = await checkRows(read.rows, saved.current.id, location.hostname);
    const asking = rows.filter((row) => !row.problem && !sent(row) && row.body.alias !== undefined);
    const aliases = [...new Set(asking.map((row) => row.body.alias!))];
    if (aliases.length > 0) {
      const answer = await patiently(() => api<Static<typeof AliasCheckAnswer>>('POST', '/aliases/check', { aliases }), setWaiting);
      rows = withTaken(rows, new Set(answer.aliases.filter((entry) => !entry.available).map((entry) => entry.alias)), sent);
    }
    const quote = await patiently(() => api<Quote>('POST', '/quotes', { action: 'link.create' }), setWaiting);
    const result = { text: rowsText, rows: planRows(rows, outcomes, quote.freeLinks ?? 0), quote, ignored: read.ignored };
    setChecked(result);
    return result;
  };

  const check = useAction(async () => {
    setStop(undefined);
    setRan(false);
    await recheck(text);
  });

  const create = useAction(async () => {
    if (!checked || checked.text !== text) return;
    setStop(undefined);
    setLeftOut(undefined);
    const events = {
      progress: (done: number, total: number) => setProgress({ what: 'create', done, total }),
      waiting: setWaiting,
      changed: () => setChanges((n) => n + 1),
    } as const;
    try {
      setStop(await createLinks(checked.rows, saved.current, events));
    } finally {
      setProgress(undefined);
      setWaiting(undefined);
      setRan(true);
    }
    // The plan of the rows left (free links used, aliases taken meanwhile) is made afresh.
    await recheck(checked.text);
  });

  const zip = useAction(async () => {
    const { downloadQrZip } = await import('./qr-zip.js');
    setLeftOut(undefined);
    try {
      setLeftOut(await downloadQrZip(madeLinks(checked), { progress: (done, total) => setProgress({ what: 'zip', done, total }), waiting: setWaiting }));
    } finally {
      setProgress(undefined);
      setWaiting(undefined);
    }
  });

  const startAgain = () => {
    saved.current = newImport();
    setText('');
    setChecked(undefined);
    setUnreadable(undefined);
    setStop(undefined);
    setRan(false);
    setLeftOut(undefined);
  };

  // A reload finds the import where it was: its rows are checked again (reads only), outcomes included.
  useEffect(() => {
    if (saved.current.text.trim() !== '') void check.run();
  }, []);

  return {
    id: saved.current.id,
    text,
    setText,
    checked,
    unreadable,
    progress,
    waiting,
    stop,
    ran,
    leftOut,
    check,
    create,
    zip,
    startAgain,
    outcomes: saved.current.outcomes,
  };
}

/** The links this import made, in the order of their rows. */
export function madeLinks(checked: Checked | undefined): MadeLink[] {
  return (checked?.rows ?? []).flatMap((row) => (row.outcome?.state === 'made' ? [row.outcome.link] : []));
}
