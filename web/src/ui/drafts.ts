/**
 * Unsaved form values kept in this tab (sessionStorage) while they differ from what was saved, so that
 * a session that ends during an edit costs nothing: after signing in again the form comes back as it was.
 */
const PREFIX = 'draft:';

export function keepDraft<T>(name: string, values: T): void {
  try {
    sessionStorage.setItem(PREFIX + name, JSON.stringify(values));
  } catch {
    // Storage may be off or full: the edit still works, it only cannot outlive the page.
  }
}

export function savedDraft<T>(name: string): T | undefined {
  try {
    const text = sessionStorage.getItem(PREFIX + name);
    return text === null ? undefined : (JSON.parse(text) as T);
  } catch {
    return undefined;
  }
}

export function dropDraft(name: string): void {
  try {
    sessionStorage.removeItem(PREFIX + name);
  } catch {
    // Nothing kept.
  }
}
