import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, whenSignedOut } from './api/client.js';
import type { Account } from './api/types.js';

/** `undefined` while the first answer is pending, `null` when signed out. */
export type SessionState = Account | null | undefined;

let state: SessionState;
const listeners = new Set<(next: SessionState) => void>();

export function setSession(next: Account | null): void {
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

/** Asks the server once at start; a 401 on any later request means the session is gone. */
export async function loadSession(): Promise<void> {
  whenSignedOut(() => setSession(null));
  try {
    setSession((await api<{ account: Account }>('GET', '/auth/session')).account);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    setSession(null);
  }
}
