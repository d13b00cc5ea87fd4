import type { ComponentType } from 'preact';

export interface PageProps {
  params: Record<string, string>;
  query: URLSearchParams;
}

export type Access = 'anyone' | 'signed-out' | 'signed-in';

export interface Route {
  /** `/app/links/:id` style: a `:name` segment matches one path segment. */
  path: string;
  title: string;
  access: Access;
  /** Label in the signed-in navigation, in this order. */
  nav?: string;
  load: () => Promise<{ default: ComponentType<PageProps> }>;
}

/**
 * Every page of the website. Each page is its own chunk, loaded when first visited, so a page's
 * initial JavaScript is the shell plus that page (scripts/bundle-size.ts measures it).
 */
export const ROUTES: Route[] = [
  { path: '/', title: 'Short links', access: 'anyone', load: () => import('./pages/home-page.js') },
  { path: '/app/signup', title: 'Create an account', access: 'signed-out', load: () => import('./pages/signup-page.js') },
  { path: '/app/signin', title: 'Sign in', access: 'signed-out', load: () => import('./pages/signin-page.js') },
  { path: '/app/verify', title: 'Verify your email', access: 'anyone', load: () => import('./pages/verify-page.js') },
  { path: '/app/reset', title: 'Reset your password', access: 'anyone', load: () => import('./pages/reset-page.js') },
  { path: '/app/trial/:id', title: 'Your trial link', access: 'anyone', load: () => import('./pages/trial-page.js') },
  { path: '/app/links', title: 'Links', access: 'signed-in', nav: 'Links', load: () => import('./pages/links-page.js') },
  { path: '/app/links/new', title: 'New link', access: 'signed-in', nav: 'New link', load: () => import('./pages/new-link-page.js') },
  { path: '/app/links/import', title: 'Import links', access: 'signed-in', load: () => import('./pages/import-page.js') },
  { path: '/app/links/:id', title: 'Link', access: 'signed-in', load: () => import('./pages/link-page.js') },
  { path: '/app/campaigns', title: 'Campaigns', access: 'signed-in', nav: 'Campaigns', load: () => import('./pages/campaigns-page.js') },
  { path: '/app/campaigns/:tag', title: 'Campaign', access: 'signed-in', load: () => import('./pages/campaign-page.js') },
  { path: '/app/keys', title: 'API keys', access: 'signed-in', nav: 'API keys', load: () => import('./pages/keys-page.js') },
  { path: '/app/billing', title: 'Usage and billing', access: 'signed-in', nav: 'Usage and billing', load: () => import('./pages/billing-page.js') },
  { path: '/app/api', title: 'API reference', access: 'anyone', load: () => import('./pages/api-reference-page.js') },
  { path: '/app/settings', title: 'Account settings', access: 'signed-in', nav: 'Settings', load: () => import('./pages/settings-page.js') },
  // Anyone may open it: the API decides, and answers 404 to all but operators, as the page then does.
  { path: '/app/admin', title: 'Operator console', access: 'anyone', load: () => import('./pages/admin-page.js') },
  { path: '/report', title: 'Report a link', access: 'anyone', load: () => import('./pages/report-page.js') },
];

export const NOT_FOUND: Route = { path: '', title: 'Page not found', access: 'anyone', load: () => import('./pages/not-found-page.js') };

/** Where a signed-in person lands (after verification, sign-in, or on /app itself). */
export const SIGNED_IN_HOME = '/app/links';

export function matchRoute(pathname: string): { route: Route; params: Record<string, string> } {
  if (pathname === '/app' || pathname === '/app/') return { route: ROUTES.find((r) => r.path === SIGNED_IN_HOME)!, params: {} };
  const parts = pathname.replace(/\/+$/, '').split('/');
  for (const route of ROUTES) {
    const pattern = route.path.replace(/\/+$/, '').split('/');
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((segment, i) => {
      if (segment.startsWith(':')) return (params[segment.slice(1)] = decodeURIComponent(parts[i] ?? '')) !== '';
      return segment === parts[i];
    });
    if (matches) return { route, params };
  }
  return { route: NOT_FOUND, params: {} };
}
