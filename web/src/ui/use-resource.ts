import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => Promise<void>;
}

/** Data a page shows: loaded on mount, reloaded on demand (after a change), the latest answer wins. */
export function useResource<T>(load: () => Promise<T>): Resource<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  const reload = useCallback(async () => {
    const ticket = ++latest.current;
    setLoading(true);
    try {
      const value = await load();
      if (ticket !== latest.current) return;
      setData(value);
      setError(null);
    } catch (failure) {
      if (ticket === latest.current) setError(failure);
    } finally {
      if (ticket === latest.current) setLoading(false);
    }
  }, []);
  useEffect(() => void reload(), [reload]);
  return { data, error, loading, reload };
}
