import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((listener) => listener());

/** Paths the single-page app draws itself; anything else (the API reference, /s/, /q/) is a page load. */
export const isAppPath = (pathname: string): boolean => pathname === '/' || pathname === '/app' || pathname.startsWith('/app/');

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  notify();
}

export interface Location {
  pathname: string;
  query: URLSearchParams;
}

const current = (): Location => ({ pathname: location.pathname, query: new URLSearchParams(location.search) });

export function useLocation(): Location {
  const [here, setHere] = useState(current);
  useEffect(() => {
    const update = () => setHere(current());
    listeners.add(update);
    return () => listeners.delete(update);
  }, []);
  return here;
}

/**
 * Plain links (`<a href="/app/keys">`) work with the keyboard, open in a new tab and need no
 * component: a same-origin click on one of the app's paths is turned into a history navigation.
 */
export function interceptLinks(): void {
  window.addEventListener('popstate', notify);
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element | null)?.closest?.('a');
    if (!anchor || anchor.target || anchor.hasAttribute('download')) return;
    const url = new URL(anchor.href, location.href);
    if (url.origin !== location.origin || !isAppPath(url.pathname)) return;
    // A link to a place on the same page is the browser's to follow (it scrolls there).
    if (url.pathname === location.pathname && url.search === location.search && url.hash !== '') return;
    event.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  });
}
