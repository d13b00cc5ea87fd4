/** The small HTML pages people see when a short link does not redirect. */
/** A page: its title, a paragraph, and any further markup (`title` and `text` are HTML: escape what is not). */
export const page = (title: string, text: string, more = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
  `<title>${title}</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem">` +
  `<main><h1>${title}</h1><p>${text}</p>${more}</main></body></html>`;

export const NOT_FOUND_PAGE = page('Link not found', 'This short link does not exist or is not active right now.');
export const EXPIRED_PAGE = page('Link expired', 'This trial link has expired and no longer redirects.');
export const PAUSED_PAGE = page('Link paused', 'The owner of this short link has paused it. It may work again later.');
export const SUSPENDED_PAGE = page('Link disabled', 'This short link was disabled by the service and no longer redirects.');

/** What people do from a poster or a mail: they get pages, not JSON, even when the path is mangled. */
export const isRedirectPath = (method: string, url: string): boolean =>
  (method === 'GET' || method === 'HEAD') && (url.startsWith('/s/') || url.startsWith('/q/'));
