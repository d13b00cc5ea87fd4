/** What names a link's files in the ZIP. */
export interface Named {
  title: string;
  slug: string;
}

const LONGEST = 60;

/**
 * A file name for each link, from its title (its slug when the title leaves nothing): accents dropped,
 * anything but letters, digits, `.`, `-` and `_` made a hyphen, at most 60 characters, never a name
 * Windows reserves, and unique ignoring case (`-2`, `-3`, … on repeats), since the files of a ZIP
 * land in one folder on systems that fold case.
 */
export function fileNames(links: Named[]): string[] {
  const used = new Set<string>();
  return links.map((link) => {
    const base = baseName(link);
    let name = base;
    for (let n = 2; used.has(name.toLowerCase()); n++) name = `${base}-${n}`;
    used.add(name.toLowerCase());
    return name;
  });
}

function baseName({ title, slug }: Named): string {
  const ascii = title.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const name = ascii
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+/, '')
    .slice(0, LONGEST)
    .replace(/[-.]+$/, '');
  const chosen = name === '' ? slug : name;
  return /^(con|prn|aux|nul|com\d|lpt\d)$/i.test(chosen) ? `${chosen}-link` : chosen;
}
