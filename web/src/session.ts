// Who is playing: a guest or an account; token, player id and name (an account's handle),
// kept in localStorage across reloads. An account's refresh token is not here: the bridge
// keeps it in an HttpOnly cookie (account.ts).
import { tokenExpiresAt as expiresAt, tokenExpired as expired } from "@parlor/client";
import { setToken } from "./api";

export interface Session {
  token: string;
  playerId: string;
  name: string;
  account?: boolean; // signed in with a provider (renewed through the bridge), else a guest
}

const KEY = "parlor.session";

// What is stored, expired or not.
export function stored(): Session | null {
  try {
    const s = JSON.parse(localStorage.getItem(KEY) ?? "null") as Session | null;
    return s && s.token ? s : null;
  } catch {
    return null;
  }
}

export function load(): Session | null {
  const s = stored();
  if (!s || expired(s.token)) return null;
  setToken(s.token);
  return s;
}

export function save(s: Session): void {
  const before = stored();
  // signing in over a guest: the guest's token is kept aside, the proof "claim my guest
  // games" (ClaimGuest) presents on the account page
  if (s.account && before && !before.account) localStorage.setItem(GUEST_KEY, JSON.stringify(before));
  localStorage.setItem(KEY, JSON.stringify(s));
  setToken(s.token);
}

const GUEST_KEY = "parlor.guest";

// The guest this browser played as before it signed in, if it kept one (expired or not).
export function guest(): Session | null {
  try {
    const s = JSON.parse(localStorage.getItem(GUEST_KEY) ?? "null") as Session | null;
    return s && s.token && !s.account ? s : null;
  } catch {
    return null;
  }
}

export function forgetGuest(): void {
  localStorage.removeItem(GUEST_KEY);
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
