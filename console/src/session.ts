// The personal API key of this browser tab: kept in sessionStorage only, so it leaves with the tab
// and never reaches a URL, a log or localStorage.
const STORAGE_KEY = 'herd.personal_api_key';

type Listener = (reason: string | null) => void;
const listeners = new Set<Listener>();

export function readKey(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function signIn(key: string) {
  sessionStorage.setItem(STORAGE_KEY, key);
  for (const listener of listeners) listener(null);
}

/** Forgets the key; `reason` is shown on the sign-in screen (a revoked key, say). */
export function signOut(reason: string | null = null) {
  sessionStorage.removeItem(STORAGE_KEY);
  for (const listener of listeners) listener(reason);
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
