// The signed-in guest: token, player id and name, kept in localStorage across reloads.
import { tokenExpiresAt as expiresAt, tokenExpired as expired } from "@parlor/client";
import { setToken } from "./api";

export interface Session {
  token: string;
  playerId: string;
  name: string;
}

const KEY = "parlor.session";

export function load(): Session | null {
  try {
    const s = JSON.parse(localStorage.getItem(KEY) ?? "null") as Session | null;
    if (!s || !s.token || expired(s.token)) return null;
    setToken(s.token);
    return s;
  } catch {
    return null;
  }
}

export function save(s: Session): void {
  localStorage.setItem(KEY, JSON.stringify(s));
  setToken(s.token);
}

// Tokens are short-lived: ask for a fresh one (IdentityService.RefreshToken) a while before
// the one held expires, for as long as the server allows the session to be refreshed.
export function keepFresh(s: Session, refresh: (token: string) => Promise<string>): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = (token: string) => {
    const left = expiresAt(token) - Date.now();
    if (!Number.isFinite(left) || left <= 0) return; // no expiry, or gone: nothing to refresh
    timer = setTimeout(async () => {
      try {
        const fresh = await refresh(token);
        s.token = fresh;
        save(s);
        schedule(fresh);
      } catch {
        // refused (the session is too old) or unreachable: the next call says so
      }
    }, Math.min(Math.max(left - 5 * 60_000, left / 2, 1000), 2 ** 31 - 1));
  };
  schedule(s.token);
  return () => clearTimeout(timer);
}

export function clear(): void {
  localStorage.removeItem(KEY);
  setToken("");
}
