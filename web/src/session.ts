import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, whenSignedOut } from './api/client.js';
import type { Account } from './api/types.js';

/** `undefined` while the first answer is pending, `null` when signed out. */
export type SessionState = Account | null | undefined;

let state: SessionState;
/** Whether a session this page held ended (a 401 on a request made with it), for the sign-in page to say so. */
let ended = false;

export const sessionEnded = (): boolean => ended;
const listeners = new Set<(next: SessionState) => void>();

export function setSession(next: Account | null): void {
  if (next) ended = false;
  state = next;
  listeners.forEach((listener) => listener(next));
}

export function useSession(): SessionState {
  const [session, setLocal] = useState<SessionState>(state);
  useEffect(() => {
    listeners.add(setLocal);
    setLocal(state);
    return () => void listeners.delete(setLocal);
  }, []);
  return session;
}

/**
 * Asks the server once at start (GET /auth/state answers a signed-out browser with `account: null`,
 * not a 401 the console would log); a 401 on any later request means the session is gone.
 */
export async function loadSession(): Promise<void> {
  whenSignedOut(() => {
    if (state) ended = true;
    setSession(null);
  });
  try {
    setSession((await api<{ account: Account | null }>('GET', '/auth/state')).account);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    setSession(null);
  }
}
