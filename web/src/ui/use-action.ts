import { useRef, useState } from 'preact/hooks';

export interface Action<A extends unknown[], R> {
  run: (...args: A) => Promise<R | undefined>;
  busy: boolean;
  error: unknown;
  clearError: () => void;
}

/**
 * A request started from a control: `busy` disables the control and shows progress; a second start
 * while one is in flight (a double click lands before the disabled state renders) is ignored.
 */
export function useAction<A extends unknown[], R>(perform: (...args: A) => Promise<R>): Action<A, R> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const inFlight = useRef(false);
  const run = async (...args: A): Promise<R | undefined> => {
    if (inFlight.current) return undefined;
    inFlight.current = true;
    setBusy(true);
    setError(null);
    try {
      return await perform(...args);
    } catch (failure) {
      setError(failure);
      return undefined;
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  };
  return { run, busy, error, clearError: () => setError(null) };
}
