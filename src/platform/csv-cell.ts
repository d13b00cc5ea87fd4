/**
 * Characters a spreadsheet starts a formula with (also their full-width forms, which some spreadsheets
 * in East Asian locales read as the ASCII ones), after any spaces or quotes a lenient reader strips.
 */
const FORMULA_START = /^(?:[^\S\t\r\n]|")*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * One text cell. Spreadsheets pick the delimiter by locale or by guessing (`,`, `;`, tab), so a cell is
 * defused as each of them would split it: every piece between `,` `;` tab and line breaks that starts
 * with a formula character gets a `'` before it, and so does a cell starting with a tab or a carriage
 * return. A cell holding any delimiter-like character or a quote is then quoted.
 */
export function csvCell(value: string): string {
  const pieces = value.split(/([,;\t\r\n])/);
  for (let i = 0; i < pieces.length; i += 2) {
    if (FORMULA_START.test(pieces[i]!)) pieces[i] = `'${pieces[i]}`;
  }
  let safe = pieces.join('');
  if (/^[\t\r]/.test(safe)) safe = `'${safe}`;
  return /[",;\t\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
