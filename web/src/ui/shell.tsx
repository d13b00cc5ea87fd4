import type { ComponentChildren } from 'preact';
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

function SignedInNav({ account, pathname }: { account: Account; pathname: string }) {
  const signOut = useAction(async () => {
    await api('POST', '/auth/signout', {});
    setSession(null);
    navigate('/app/signin', { replace: true });
  });
  return (
    <>
      <nav aria-label="Main">
        <ul>
          {ROUTES.filter((route) => route.nav).map((route) => (
            <li key={route.path}>
              <a href={route.path} aria-current={pathname === route.path || pathname.startsWith(`${route.path}/`) ? 'page' : undefined}>
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
    </>
  );
}
