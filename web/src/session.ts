// The signed-in guest: token, player id and name, kept in localStorage across reloads.
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

export function clear(): void {
  localStorage.removeItem(KEY);
  setToken("");
}

function expired(token: string): boolean {
  try {
    const payload = JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))) as { exp?: number };
    return typeof payload.exp === "number" && payload.exp * 1000 < Date.now();
  } catch {
    return true;
  }
}
