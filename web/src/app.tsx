import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { matchRoute, SIGNED_IN_HOME, type PageProps, type Route } from './routes.js';
import { navigate, useLocation } from './router.js';
import { useSession } from './session.js';
import { Shell } from './ui/shell.js';
import { Busy } from './ui/form.js';

const loaded = new Map<Route, ComponentType<PageProps>>();

/** Only same-site paths of the app are followed after sign-in: `next` comes from the address bar. */
const safeNext = (next: string | null): string => (next && /^\/app\/[^/\\]/.test(next) ? next : SIGNED_IN_HOME);

export function App() {
  const here = useLocation();
  const session = useSession();
  const { route, params } = matchRoute(here.pathname);
  const redirect = whereTo(route, session, here);
  const [, setVersion] = useState(0);
  const Page = loaded.get(route);

  useEffect(() => {
    if (redirect) navigate(redirect, { replace: true });
  }, [redirect]);
  useEffect(() => {
    if (Page) return;
    void route.load().then((module) => {
      loaded.set(route, module.default);
      setVersion((v) => v + 1);
    });
  }, [route, Page]);
  useEffect(() => {
    document.title = `${route.title} · Short links`;
  }, [route]);
  // A new page moves focus to its heading, as a page load would put a screen reader at the top.
  useEffect(() => {
    if (Page && !redirect && session !== undefined) document.querySelector<HTMLElement>('main h1')?.focus();
  }, [Page, here.pathname, redirect, session === undefined]);

  const ready = Page && !redirect && (route.access === 'anyone' || session !== undefined);
  return (
    <Shell account={session} pathname={here.pathname}>
      {ready ? <Page params={params} query={here.query} /> : <Busy busy text="Loading…" />}
    </Shell>
  );
}

function whereTo(route: Route, session: ReturnType<typeof useSession>, here: ReturnType<typeof useLocation>): string | undefined {
  if (session === undefined) return undefined;
  if (route.access === 'signed-in' && session === null) {
    return `/app/signin?next=${encodeURIComponent(here.pathname + here.query.toString().replace(/^(.)/, '?$1'))}`;
  }
  if (route.access === 'signed-out' && session) return safeNext(here.query.get('next'));
  return undefined;
}
