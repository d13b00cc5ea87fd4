/**
 * The small HTML pages people see when a short link does not redirect, in the website's colours and
 * type (light and dark), self-contained: no script, no request for a stylesheet or an icon, so they stay as fast
 * as the redirect path that answers them.
 */
const STYLE =
  ':root{color-scheme:light dark;--bg:#fff;--surface:#f4f5f7;--text:#1a1c1f;--muted:#4d535c;--border:#b9bec6;--link:#1d4ed8;--accent:#1d4ed8;--on-accent:#fff}' +
  '@media (prefers-color-scheme:dark){:root{--bg:#121417;--surface:#1d2025;--text:#e8eaed;--muted:#b0b6bf;--border:#5b6270;--link:#9ec1ff;--accent:#9ec1ff;--on-accent:#0b1220}}' +
  "body{margin:0;background:var(--bg);color:var(--text);font:1rem/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans','DejaVu Sans',sans-serif}" +
  'header{border-bottom:1px solid var(--border);background:var(--surface);padding:.75rem 1rem}header a{font-weight:700;color:var(--text);text-decoration:none}' +
  'main{max-width:36rem;margin:2.5rem auto;padding:0 1rem}h1{font-size:1.75rem;line-height:1.2;margin:.5rem 0 1rem}a{color:var(--link)}' +
  '.card{border:1px solid var(--border);border-radius:6px;background:var(--surface);padding:1rem 1.25rem}.muted{color:var(--muted)}' +
  '.button{display:inline-block;background:var(--accent);color:var(--on-accent);font-weight:600;padding:.5rem 1rem;border-radius:6px;text-decoration:none}' +
  'code{overflow-wrap:anywhere}';

/**
 * The website's icon (web/favicon.svg, which a test holds equal), inline: without it a browser asks for
 * /favicon.ico, gets a 404 and logs it as an error on the page.
 */
export const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1d4ed8"/><path d="M9 17a5 5 0 0 1 5-5h3v3h-3a2 2 0 0 0 0 4h3v3h-3a5 5 0 0 1-5-5zm14-2a5 5 0 0 1-5 5h-3v-3h3a2 2 0 0 0 0-4h-3v-3h3a5 5 0 0 1 5 5z" fill="#fff"/></svg>';
const ICON = `<link rel="icon" type="image/svg+xml" href="data:image/svg+xml,${encodeURIComponent(ICON_SVG)}">`;

/** A page: its title, a paragraph, and any further markup (`title` and `text` are HTML: escape what is not). */
export const page = (title: string, text: string, more = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
  `<meta name="robots" content="noindex">${ICON}<title>${title}</title><style>${STYLE}</style></head><body>` +
  `<header><a href="/">Short links</a></header><main><h1>${title}</h1><div class="card"><p>${text}</p>${more}</div></main></body></html>`;

/** Where anyone tells the operator about a short link (the website's report page, prefilled). */
export const reportLink = (shortUrl: string) => `<p><a href="/report?url=${encodeURIComponent(shortUrl)}">Report this link</a></p>`;

const HOME = '<p><a class="button" href="/">Make a short link</a></p>';

/** Why a short link does not redirect, in plain words, one case each. */
export const PAGE_TEXTS = {
  missing: ['Link not found', 'There is no short link at this address. Check it for a typing mistake: letters in short links are case-sensitive.'],
  expired: ['Link expired', 'This was a trial link. Trial links work for 7 days, and this one’s time is up, so it no longer leads anywhere.'],
  paused: ['Link paused', 'The owner of this short link has paused it for now. It may work again later; nothing is wrong with your device.'],
  suspended: ['Link disabled', 'The service disabled this short link because it broke the rules. It no longer leads anywhere.'],
} as const;

export type PageCase = keyof typeof PAGE_TEXTS;

/**
 * A case's page for one short URL, as two halves around the report link's short URL: the halves are
 * built once, so an answer costs one concatenation.
 */
export function casePage(kind: PageCase): (shortUrl: string | undefined) => string {
  const [title, text] = PAGE_TEXTS[kind];
  const marker = '\u0000';
  const [before, after] = page(title, text, `${HOME}${reportLink(marker)}`).split(encodeURIComponent(marker)) as [string, string];
  const plain = page(title, text, HOME);
  return (shortUrl) => (shortUrl === undefined ? plain : before + encodeURIComponent(shortUrl) + after);
}

export const NOT_FOUND_PAGE = page(...PAGE_TEXTS.missing, HOME);

/** What people do from a poster or a mail: they get pages, not JSON, even when the path is mangled. */
export const isRedirectPath = (method: string, url: string): boolean =>
  (method === 'GET' || method === 'HEAD') && (url.startsWith('/s/') || url.startsWith('/q/'));
