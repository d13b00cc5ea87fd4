import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './shell.css';
import { api } from '../api/client.js';
import type { Account } from '../api/types.js';
import { ROUTES } from '../routes.js';
import { navigate } from '../router.js';
import { setSession } from '../session.js';
import { ErrorMessage } from './form.js';
import { useAction } from './use-action.js';

interface ShellProps {
  account: Account | null | undefined;
  pathname: string;
  children: ComponentChildren;
}

/** The frame of every page: a skip link, the header with navigation, and the main landmark. */
export function Shell({ account, pathname, children }: ShellProps) {
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="site-header">
        <a class="brand" href="/">
          Short links
        </a>
        {account ? <SignedInNav account={account} pathname={pathname} /> : account === null ? <SignedOutNav /> : null}
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      <footer class="site-footer">
        <a href="/app/api">API reference</a>
      </footer>
    </>
  );
}

function SignedOutNav() {
  return (
    <nav aria-label="Account">
      <ul>
        <li>
          <a href="/app/signin">Sign in</a>
        </li>
        <li>
          <a href="/app/signup">Sign up</a>
        </li>
      </ul>
    </nav>
  );
}

/** The navigation item of the current page: the longest item path the page's path starts with, so that /app/links/new marks "New link" alone. */
export function currentNav(pathname: string): string | undefined {
  const matching = ROUTES.filter((route) => route.nav && (pathname === route.path || pathname.startsWith(`${route.path}/`)));
  const exact = matching.find((route) => route.path === pathname);
  if (exact) return exact.path;
  // A page below an item that is itself an item (a link's page below Links, not below New link).
  return matching.sort((a, b) => b.path.length - a.path.length)[0]?.path;
}

function SignedInNav({ account, pathname }: { account: Account; pathname: string }) {
  // On a phone the navigation folds behind one button; it folds again on every new page.
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [pathname]);
  const current = currentNav(pathname);
  const signOut = useAction(async () => {
    await api('POST', '/auth/signout', {});
    setSession(null);
    navigate('/app/signin', { replace: true });
  });
  return (
    <>
      <button type="button" class="menu-button secondary" aria-expanded={open} aria-controls="site-menu" onClick={() => setOpen(!open)}>
        Menu
      </button>
      <div id="site-menu" class={open ? 'site-menu open' : 'site-menu'}>
        <nav aria-label="Main">
          <ul>
            {ROUTES.filter((route) => route.nav).map((route) => (
              <li key={route.path}>
                <a href={route.path} aria-current={route.path === current ? 'page' : undefined}>
                  {route.nav}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span class="email">{account.email}</span>
          <button type="button" class="secondary" onClick={() => void signOut.run()} disabled={signOut.busy}>
            Sign out
          </button>
          <ErrorMessage error={signOut.error} />
        </div>
      </div>
    </>
  );
}
