// Accounts in the browser: sign-in through the bridge (GET /auth/sign-in sends the browser
// to the provider; the bridge's /auth/callback completes it and keeps the account's refresh
// token in an HttpOnly cookie no script can read), access tokens from POST /auth/session,
// sign-out, and the account page (handle, linked identities).
import { errorFromBody, tokenPlayerId } from "@parlor/client";
import { IdentityService, type Account } from "@parlor/client/gen/parlor/identity/v1/identity_pb";
import { unary } from "./api";
import { h, notice, replace } from "./dom";
import { describe } from "./play";
import type { Session } from "./session";

const JSON_POST = { method: "POST", headers: { "content-type": "application/json" }, body: "{}", credentials: "same-origin" } as const;

// The providers this site offers sign-in with (none: guests only).
export async function providers(): Promise<string[]> {
  try {
    const r = await fetch("/auth/providers", { credentials: "same-origin" });
    return r.ok ? ((await r.json()) as { providers: string[] }).providers : [];
  } catch {
    return [];
  }
}

export function signInLinks(names: string[]): Node | null {
  if (!names.length) return null;
  return h(
    "div",
    { class: "card", id: "sign-in-account" },
    h("h2", {}, "Sign in"),
    h("p", { class: "hint" }, "With an account you are the same player on every browser."),
    names.map((n) => h("a", { class: "button", href: `/auth/sign-in?provider=${encodeURIComponent(n)}`, "data-provider": n }, `Sign in with ${n}`)),
  );
}

// A fresh access token for this browser's account session, or null when it holds none.
// The bridge rotates the refresh token in its cookie: two renewals with one token would look
// like a stolen copy and end the session, so the tabs of this browser take turns (Web Locks),
// and a tab finding a token another tab has just obtained takes that one instead.
export async function renew(held: () => Session | null, current = ""): Promise<Session | null> {
  const ask = async (): Promise<Session | null> => {
    const other = held();
    if (other?.account && other.token !== current) return other;
    const r = await fetch("/auth/session", JSON_POST);
    const body: unknown = await r.json().catch(() => null);
    if (r.status === 401) return null;
    if (!r.ok) throw errorFromBody(body, r.status);
    const token = (body as { accessToken: string }).accessToken;
    return { token, playerId: tokenPlayerId(token), name: other?.account ? other.name : "", account: true };
  };
  return navigator.locks ? navigator.locks.request("parlor.renew", ask) : ask();
}

export async function signOut(): Promise<void> {
  const r = await fetch("/auth/sign-out", JSON_POST);
  if (!r.ok) throw errorFromBody(await r.json().catch(() => null), r.status);
}

export async function account(): Promise<Account | undefined> {
  return (await unary(IdentityService, "getAccount", {})).account;
}

// The account page: who you are, your handle (and choosing it), the identities you sign in
// with, and signing out. A guest is told what an account is and offered to sign in.
export function accountPage(main: Element, me: Session, names: string[], onHandle: (handle: string) => void, leave: () => void): void {
  if (!me.account) {
    replace(main, h("section", { class: "card", id: "account" }, h("h2", {}, "Playing as a guest"), h("p", {}, `Your player id is ${me.playerId}.`)), signInLinks(names));
    return;
  }
  const shown = h("section", { class: "card", id: "account" }, h("p", {}, "Loading your account…"));
  replace(main, shown);
  const paint = (a: Account) => {
    const input = h("input", { id: "handle", value: a.handle, placeholder: "your handle", maxlength: 20, required: true }) as HTMLInputElement;
    const form = h("form", { id: "set-handle" }, h("label", {}, "Handle ", input), h("button", { type: "submit" }, "Save"));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        const r = await unary(IdentityService, "setHandle", { handle: input.value.trim() });
        if (r.account) {
          paint(r.account);
          onHandle(r.account.handle);
          notice(`Your handle is now ${r.account.handle}.`);
        }
      } catch (err) {
        notice(describe(err), "error");
      }
    });
    const since = a.createdAt ? new Date(Number(a.createdAt.seconds) * 1000).toLocaleString() : "";
    replace(
      shown,
      h("h2", {}, "Your account"),
      h("p", {}, "Handle: ", h("strong", { id: "account-handle" }, a.handle || "none yet: choose one below")),
      h("p", { class: "hint" }, `Player id ${a.playerId}`, since ? ` · since ${since}` : ""),
      form,
      h("h3", {}, "Signed in with"),
      h("ul", { id: "identities" }, a.identities.map((i) => h("li", {}, `${i.issuer} (${i.subject})`))),
      h("button", { id: "account-sign-out", onclick: leave }, "Sign out"),
    );
  };
  account().then(
    (a) => (a ? paint(a) : replace(shown, h("p", {}, "No account."))),
    (err) => replace(shown, h("p", { class: "error" }, describe(err))),
  );
}
