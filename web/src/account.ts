// Accounts in the browser: sign-in through the bridge (GET /auth/sign-in sends the browser
// to the provider; the bridge's /auth/callback completes it and keeps the account's refresh
// token in an HttpOnly cookie no script can read), access tokens from POST /auth/session,
// sign-out, built-in accounts' sign-up and sign-in (POST /auth/password, the refresh token
// in the same cookie), and the account page (handle, linked identities, claiming the guest
// this browser played as, sessions and signing out everywhere, erasure).
import { ParlorClient, errorFromBody, tokenExpired, tokenPlayerId } from "@parlor/client";
import { IdentityService, type Account, type Session as AccountSession } from "@parlor/client/gen/parlor/identity/v1/identity_pb";
import { ApiError, unary } from "./api";
import { h, notice, replace } from "./dom";
import { describe } from "./play";
import * as sessions from "./session";
import type { Session } from "./session";

const JSON_POST = { method: "POST", headers: { "content-type": "application/json" }, body: "{}", credentials: "same-origin" } as const;

interface Offered {
  providers: string[];
  passwords?: boolean;
}
let offered: Promise<Offered> | undefined;
function offer(): Promise<Offered> {
  offered ??= fetch("/auth/providers", { credentials: "same-origin" })
    .then(async (r) => (r.ok ? ((await r.json()) as Offered) : { providers: [] }))
    .catch(() => ({ providers: [] }));
  return offered;
}

// The providers this site offers sign-in with (none: guests only).
export async function providers(): Promise<string[]> {
  return (await offer()).providers;
}

// Built-in accounts (a handle and a password), when this site offers them: a card with the
// sign-in and sign-up forms, or null. `signedIn` gets the account's session, saved already.
export async function passwordCard(signedIn: (s: Session) => void): Promise<Node | null> {
  if (!(await offer()).passwords) return null;
  const form = (id: string, title: string, signUp: boolean): Node => {
    const handle = h("input", { name: "handle", autocomplete: "username", maxlength: 20, required: true }) as HTMLInputElement;
    const password = h("input", { name: "password", type: "password", autocomplete: signUp ? "new-password" : "current-password", minlength: 10, maxlength: 128, required: true }) as HTMLInputElement;
    const shown = h("form", { id }, h("h3", {}, title), h("label", {}, "Handle ", handle), h("label", {}, "Password ", password), h("button", { type: "submit" }, title));
    shown.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        signedIn(await withPassword(handle.value.trim(), password.value, signUp));
      } catch (err) {
        notice(describe(err), "error");
      } finally {
        password.value = "";
      }
    });
    return shown;
  };
  return h(
    "div",
    { class: "card", id: "password-account" },
    h("h2", {}, "An account with a password"),
    form("password-sign-in", "Sign in", false),
    form("password-sign-up", "Sign up", true),
  );
}

// Sign in (or up) through the bridge, which keeps the refresh token in its HttpOnly cookie;
// the page gets the access token, and the session is saved (a guest's kept aside to claim).
async function withPassword(handle: string, password: string, signUp: boolean): Promise<Session> {
  const r = await fetch("/auth/password", { ...JSON_POST, body: JSON.stringify({ handle, password, signUp }) });
  const body: unknown = await r.json().catch(() => null);
  if (!r.ok) throw errorFromBody(body, r.status);
  const token = (body as { accessToken: string }).accessToken;
  const me: Session = { token, playerId: tokenPlayerId(token), name: "", account: true };
  sessions.save(me);
  me.name = (await account())?.handle ?? "";
  sessions.save(me);
  return me;
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
export function accountPage(main: Element, me: Session, names: string[], onHandle: (handle: string) => void, leave: () => void, signedIn?: (s: Session) => void): void {
  if (!me.account) {
    replace(main, h("section", { class: "card", id: "account" }, h("h2", {}, "Playing as a guest"), h("p", {}, `Your player id is ${me.playerId}.`)), signInLinks(names));
    if (signedIn) void passwordCard(signedIn).then((card) => card && main.append(card));
    return;
  }
  const shown = h("section", { class: "card", id: "account" }, h("p", {}, "Loading your account…"));
  replace(main, shown);
  const paint = (a: Account, extras = true) => {
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
      a.guestIds.length ? h("p", { id: "claimed-guests" }, `Guest games claimed: ${a.guestIds.join(", ")}`) : null,
      h("button", { id: "account-sign-out", onclick: leave }, "Sign out"),
    );
    if (!extras) return;
    main.querySelectorAll(".account-extra").forEach((e) => e.remove());
    shown.after(claimCard(() => void account().then((b) => b && paint(b, false))), sessionsCard(leave), eraseCard(a, leave));
  };
  account().then(
    (a) => (a ? paint(a) : replace(shown, h("p", {}, "No account."))),
    (err) => replace(shown, h("p", { class: "error" }, describe(err))),
  );
}

function when(stamp: { seconds: bigint } | undefined): string {
  return stamp && stamp.seconds ? new Date(Number(stamp.seconds) * 1000).toLocaleString() : "-";
}

function refusal(err: unknown): Record<string, string> {
  return err instanceof ApiError ? { "data-reason": err.reason } : {};
}

// "Claim my guest games": the guest this browser played as before signing in, its token the
// proof (refreshed first when it has expired, within the guest's seven days).
function claimCard(claimed: () => void): Node {
  const held = sessions.guest();
  const card = h("section", { class: "card account-extra", id: "claim-guest" }, h("h3", {}, "Your guest games"));
  if (!held) {
    card.append(h("p", { class: "hint" }, "No guest played on this browser before you signed in: nothing to claim."));
    return card;
  }
  const result = h("p", { id: "claim-result", role: "status" });
  const claim = async () => {
    try {
      let token = held.token;
      if (tokenExpired(token)) token = await new ParlorClient({ token }).refreshToken();
      const r = await unary(IdentityService, "claimGuest", { guestToken: token });
      sessions.forgetGuest();
      replace(result, `Claimed ${r.guestId}: its games and ratings are yours now.`);
      result.setAttribute("data-claimed", r.guestId);
      button.remove();
      claimed();
    } catch (err) {
      replace(result, `Not claimed: ${describe(err)}`);
      for (const [k, v] of Object.entries(refusal(err))) result.setAttribute(k, v);
      result.classList.add("error");
    }
  };
  const button = h("button", { id: "claim-guest-button", onclick: () => void claim() }, "Claim my guest games");
  card.append(h("p", {}, `Before signing in, this browser played as the guest ${held.name || held.playerId} (${held.playerId}).`), button, result);
  return card;
}

// The account's sessions (never their tokens), and signing out of every one of them.
function sessionsCard(ended: () => void): Node {
  const list = h("ul", { id: "sessions" }, h("li", {}, "Loading…"));
  const everywhere = async () => {
    try {
      const r = await unary(IdentityService, "signOutEverywhere", {});
      notice(`Signed out everywhere: ${r.revoked} session(s) ended.`);
      ended();
    } catch (err) {
      notice(describe(err), "error");
    }
  };
  const card = h(
    "section",
    { class: "card account-extra", id: "account-sessions" },
    h("h3", {}, "Where you are signed in"),
    list,
    h("button", { id: "sign-out-everywhere", onclick: () => void everywhere() }, "Sign out everywhere"),
  );
  unary(IdentityService, "listSessions", {}).then(
    (r) =>
      replace(
        list,
        r.sessions.map((one: AccountSession) =>
          h("li", { "data-session": one.sessionId }, `${one.client || "a client"} · since ${when(one.createdAt)} · last used ${when(one.lastUsedAt)} · until ${when(one.expiresAt)}`),
        ),
      ),
    (err) => replace(list, h("li", { class: "error" }, describe(err))),
  );
  return card;
}

// Erasure, behind a confirmation: the handle typed again.
function eraseCard(a: Account, ended: () => void): Node {
  const expected = a.handle || "erase";
  const typed = h("input", { id: "erase-confirm", autocomplete: "off", placeholder: expected }) as HTMLInputElement;
  const confirm = h(
    "form",
    { id: "erase-form", hidden: true },
    h("p", {}, "Your account is closed for good, every session ended, your handle and names forgotten; your games stay, played by an erased account."),
    h("label", {}, `Type ${expected} to confirm `, typed),
    h("button", { type: "submit", id: "erase-confirmed", class: "danger" }, "Erase for good"),
  ) as HTMLFormElement;
  confirm.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (typed.value.trim() !== expected) {
      notice(`Not erased: type ${expected} to confirm.`, "error");
      return;
    }
    try {
      await unary(IdentityService, "eraseAccount", {});
      notice("Your account is erased.");
      ended();
    } catch (err) {
      notice(describe(err), "error");
    }
  });
  return h(
    "section",
    { class: "card account-extra", id: "account-erase" },
    h("h3", {}, "Erase my account"),
    h("button", { id: "erase-account", onclick: () => (confirm.hidden = false) }, "Erase my account…"),
    confirm,
  );
}
