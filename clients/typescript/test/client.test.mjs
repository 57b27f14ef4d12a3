// The client against a fake gateway: requests on the wire, errors decoded, streams followed,
// resumed and stopped. Runs against dist/ (what the package ships).
import assert from "node:assert/strict";
import { test } from "node:test";
import { chat, connect4x4, isParlorError, matchmaking, ParlorClient, ParlorError, tokenExpiresAt, tokenPlayerId } from "../dist/index.js";
import { errorBody, event, fakeFetch, json, sse } from "./fake.mjs";

const BASE = "http://gateway.test";

function jwt(claims) {
  const part = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${part({ alg: "EdDSA" })}.${part(claims)}.sig`;
}

test("a unary call posts the proto3 JSON of its request with the token, and reads the answer", async () => {
  const { fetch, requests } = fakeFetch(() => json({ game: { gameId: "g1", version: "7", status: "STATUS_IN_PROGRESS", legalMoves: ["a"] } }));
  const parlor = new ParlorClient({ baseUrl: BASE + "/", fetch, token: "t0" });
  const reply = await parlor.connect4x4.playMove({ gameId: "g1", move: "df", commandId: "c1", seat: 1 });
  assert.equal(requests[0].url, `${BASE}/api/parlor.connect4x4.v1.Connect4x4Service/PlayMove`);
  assert.equal(requests[0].method, "POST");
  assert.equal(requests[0].headers.authorization, "Bearer t0");
  assert.deepEqual(requests[0].body, { gameId: "g1", move: "df", seat: 1, commandId: "c1" });
  assert.equal(reply.game?.version, 7n); // uint64 as bigint
  assert.equal(reply.game?.status, connect4x4.Status.IN_PROGRESS);
  assert.deepEqual(reply.game?.legalMoves, ["a"]);
});

test("a refusal is a ParlorError with the status, the ErrorInfo's reason, domain and metadata", async () => {
  const { fetch } = fakeFetch(() => json(errorBody("FAILED_PRECONDITION", "COLUMN_FULL", "column d is full", { column: "d" }), 400));
  const parlor = new ParlorClient({ baseUrl: BASE, fetch });
  const error = await parlor.connect4x4.playMove({ gameId: "g1", move: "df" }).catch((e) => e);
  assert.ok(error instanceof ParlorError);
  assert.ok(isParlorError(error, "COLUMN_FULL"));
  assert.equal(error.status, "FAILED_PRECONDITION");
  assert.equal(error.code, 9);
  assert.equal(error.reason, "COLUMN_FULL");
  assert.equal(error.domain, "parlor.dev");
  assert.deepEqual(error.metadata, { column: "d" });
  assert.equal(error.httpStatus, 400);
  assert.equal(error.transient, false);
  assert.equal(error.describe(), "column d is full (COLUMN_FULL)");
});

test("a renamed reason is found by its old name too (ErrorInfo metadata deprecated_reason)", async () => {
  const body = errorBody("INVALID_ARGUMENT", "INVALID_NOTATION", "cannot read move", { deprecated_reason: "BAD_NOTATION" });
  const { fetch } = fakeFetch(() => json(body, 400));
  const parlor = new ParlorClient({ baseUrl: BASE, fetch });
  const error = await parlor.upwords.play({ gameId: "g1", move: "Z99 WORD" }).catch((e) => e);
  assert.equal(error.reason, "INVALID_NOTATION");
  assert.ok(isParlorError(error, "INVALID_NOTATION"));
  assert.ok(isParlorError(error, "BAD_NOTATION"));
  assert.ok(!isParlorError(error, "OFF_BOARD"));
});

test("an answer without a JSON body (a proxy's) still has a status; no answer at all is UNAVAILABLE NETWORK", async () => {
  const proxy = new ParlorClient({ baseUrl: BASE, fetch: async () => new Response("<html>bad gateway</html>", { status: 502 }) });
  const e1 = await proxy.identity.refreshToken().catch((e) => e);
  assert.equal(e1.status, "UNAVAILABLE");
  assert.equal(e1.reason, "");
  const down = new ParlorClient({ baseUrl: BASE, fetch: async () => { throw new TypeError("fetch failed"); } });
  const e2 = await down.identity.refreshToken().catch((e) => e);
  assert.equal(e2.status, "UNAVAILABLE");
  assert.equal(e2.reason, "NETWORK");
  assert.ok(e2.transient);
});

test("retries send a command again after a transient failure, never after a refusal", async () => {
  const flaky = fakeFetch((_, n) => (n < 3 ? json(errorBody("UNAVAILABLE", "", "restarting"), 503) : json({ game: { gameId: "g" } })));
  const parlor = new ParlorClient({ baseUrl: BASE, fetch: flaky.fetch });
  const reply = await parlor.connect4x4.resign({ gameId: "g", commandId: "same" }, { retries: 3 });
  assert.equal(reply.game?.gameId, "g");
  assert.equal(flaky.requests.length, 3);
  assert.deepEqual(new Set(flaky.requests.map((r) => r.body.commandId)), new Set(["same"]));

  const refused = fakeFetch(() => json(errorBody("PERMISSION_DENIED", "NOT_SEATED", "no"), 403));
  const other = new ParlorClient({ baseUrl: BASE, fetch: refused.fetch });
  await assert.rejects(other.connect4x4.resign({ gameId: "g" }, { retries: 3 }), (e) => e.reason === "NOT_SEATED");
  assert.equal(refused.requests.length, 1);
});

test("signing in as a guest holds the token; its subject is the player id", async () => {
  const token = jwt({ sub: "guest-42", exp: 2_000_000_000 });
  const seen = [];
  const { fetch, requests } = fakeFetch((r) =>
    r.url.endsWith("IssueGuestToken") ? json({ token, playerId: "guest-42" }) : json({ ticket: { ticketId: "t", status: "TICKET_STATUS_WAITING" } }),
  );
  const parlor = new ParlorClient({ baseUrl: BASE, fetch, onToken: (t) => seen.push(t) });
  assert.equal(parlor.playerId, "");
  const me = await parlor.signInAsGuest("Ada");
  assert.deepEqual(me, { token, playerId: "guest-42" });
  assert.equal(requests[0].headers.authorization, undefined);
  assert.deepEqual(requests[0].body, { displayName: "Ada" });
  assert.equal(parlor.playerId, "guest-42");
  assert.deepEqual(seen, [token]);
  const { ticket } = await parlor.matchmaking.createTicket({ gameType: "connect4x4", minPlayers: 2, maxPlayers: 2 });
  assert.equal(requests[1].headers.authorization, `Bearer ${token}`);
  assert.equal(ticket?.status, matchmaking.TicketStatus.WAITING);
  assert.equal(tokenPlayerId(token), "guest-42");
  assert.equal(tokenExpiresAt(token), 2_000_000_000_000);
  assert.equal(tokenExpiresAt("not a token"), 0);
});

test("a stream is an async iterable of its messages, to its end", async () => {
  const { fetch, requests } = fakeFetch(() =>
    sse([": open\n\n", event({ event: { info: { version: "1" }, notation: "" } }, { id: "1" }), event({ event: { info: { version: "2" }, notation: "df" } }, { id: "2" }), "event: end\ndata: {}\n\n"]),
  );
  const parlor = new ParlorClient({ baseUrl: BASE, fetch });
  const seen = [];
  for await (const update of parlor.watchGame("connect4x4", "g1")) seen.push(update.event?.info?.version);
  assert.deepEqual(seen, [1n, 2n]);
  assert.equal(requests.length, 1);
  assert.equal(requests[0].headers.accept, "text/event-stream");
  assert.deepEqual(requests[0].body, { gameId: "g1" });
});

test("a dropped stream reconnects and resumes after the last event id, saying so", async () => {
  const { fetch, requests } = fakeFetch((_, n) =>
    n === 1
      ? sse([event({ event: { notation: "a" } }, { id: "4" })]) // then the connection drops
      : n === 2
        ? json(errorBody("UNAVAILABLE", "", "restarting"), 503) // the gateway restarting
        : sse([event({ event: { notation: "b" } }, { id: "5" }), "event: end\ndata: {}\n\n"]),
  );
  const parlor = new ParlorClient({ baseUrl: BASE, fetch });
  const connection = [];
  const moves = [];
  for await (const u of parlor.connect4x4.watchGame({ gameId: "g" }, { delayMs: 1, onConnection: (up) => connection.push(up) })) moves.push(u.event?.notation);
  assert.deepEqual(moves, ["a", "b"]);
  assert.deepEqual(requests.map((r) => r.headers["last-event-id"]), [undefined, "4", "4"]);
  assert.deepEqual(connection, [true, false, false, true]);
});

test("a transient error event resumes; any other error event ends the stream with a ParlorError", async () => {
  const { fetch, requests } = fakeFetch((_, n) =>
    n === 1
      ? sse([event({ event: { notation: "a" } }, { id: "1" }), event(errorBody("UNAVAILABLE", "", "upstream restarting"), { event: "error" })], { hold: true })
      : sse([event(errorBody("NOT_FOUND", "GAME_NOT_FOUND", "no game g"), { event: "error" })], { hold: true }),
  );
  const parlor = new ParlorClient({ baseUrl: BASE, fetch });
  const moves = [];
  const error = await (async () => {
    for await (const u of parlor.connect4x4.watchGame({ gameId: "g" }, { delayMs: 1 })) moves.push(u.event?.notation);
  })().catch((e) => e);
  assert.deepEqual(moves, ["a"]);
  assert.equal(requests[1].headers["last-event-id"], "1");
  assert.ok(isParlorError(error, "GAME_NOT_FOUND"));
  assert.equal(error.status, "NOT_FOUND");
  assert.ok(requests.every((r) => r.signal.aborted), "every connection is closed");
});

test("a refused stream throws at once; breaking out of the loop closes the connection", async () => {
  const refused = new ParlorClient({ baseUrl: BASE, fetch: async () => json(errorBody("INVALID_ARGUMENT", "INVALID_GAME_ID", "bad id"), 400) });
  await assert.rejects(async () => {
    for await (const _ of refused.upwords.watchGame({ gameId: "" })) assert.fail("no message");
  }, (e) => e.reason === "INVALID_GAME_ID");

  const { fetch, requests } = fakeFetch((r) => sse([event({ event: { notation: "a" } }, { id: "1" }), event({ event: { notation: "b" } }, { id: "2" })], { hold: true, signal: r.signal }));
  const parlor = new ParlorClient({ baseUrl: BASE, fetch });
  for await (const u of parlor.upwords.watchGame({ gameId: "g" })) {
    assert.equal(u.event?.notation, "a");
    break;
  }
  assert.equal(requests.length, 1);
  assert.ok(requests[0].signal.aborted);

  const controller = new AbortController();
  const held = fakeFetch((r) => sse([event({ event: { notation: "a" } }, { id: "1" })], { hold: true, signal: r.signal }));
  const got = [];
  const done = (async () => {
    for await (const u of new ParlorClient({ baseUrl: BASE, fetch: held.fetch }).connect4x4.watchGame({ gameId: "g" }, { signal: controller.signal })) {
      got.push(u.event?.notation);
      setTimeout(() => controller.abort(), 5);
    }
  })();
  await done; // ends quietly when aborted
  assert.deepEqual(got, ["a"]);
});

test("waitForMatch follows a ticket to its match; a ticket that expires is a ParlorError", async () => {
  const ticket = (status, more = {}) => event({ ticket: { ticketId: "t1", status, ...more } });
  const matched = new ParlorClient({
    baseUrl: BASE,
    fetch: async () => sse([ticket("TICKET_STATUS_WAITING"), ticket("TICKET_STATUS_MATCHED", { matchId: "m1", gameType: "connect4x4", seat: 1 })], { hold: true }),
  });
  const t = await matched.waitForMatch("t1");
  assert.equal(t.matchId, "m1");
  assert.equal(t.seat, 1);
  const expired = new ParlorClient({ baseUrl: BASE, fetch: async () => sse([ticket("TICKET_STATUS_EXPIRED")], { hold: true }) });
  await assert.rejects(expired.waitForMatch("t1"), (e) => e instanceof ParlorError && e.reason === "TICKET_EXPIRED");
  // A friend's ticket in a lobby its host left: ended with the lobby, named as such.
  const closed = new ParlorClient({ baseUrl: BASE, fetch: async () => sse([ticket("TICKET_STATUS_WAITING"), ticket("TICKET_STATUS_LOBBY_CLOSED")], { hold: true }) });
  await assert.rejects(closed.waitForMatch("t1"), (e) => e instanceof ParlorError && e.reason === "TICKET_LOBBY_CLOSED");
});

test("watchGame waits for a matched game its service has not created yet", async () => {
  const { fetch, requests } = fakeFetch((_, n) =>
    n < 3 ? json(errorBody("NOT_FOUND", "GAME_NOT_FOUND", "not yet"), 404) : sse([event({ event: { info: { version: "1" } } }, { id: "1" }), "event: end\ndata: {}\n\n"]),
  );
  const parlor = new ParlorClient({ baseUrl: BASE, fetch });
  const versions = [];
  for await (const u of parlor.watchGame("upwords", "m1", { waitForGameMs: 5000 })) versions.push(u.event?.info?.version);
  assert.deepEqual(versions, [1n]);
  assert.equal(requests.length, 3);
  await assert.rejects(async () => {
    for await (const _ of new ParlorClient({ baseUrl: BASE, fetch: async () => json(errorBody("NOT_FOUND", "GAME_NOT_FOUND", "no"), 404) }).watchGame("upwords", "m1")) break;
  }, (e) => e.reason === "GAME_NOT_FOUND");
});

test("every service of every proto has a typed client; service() makes one for any other", async () => {
  const { fetch, requests } = fakeFetch(() => json({}));
  const parlor = new ParlorClient({ baseUrl: BASE, fetch });
  for (const name of ["identity", "matchmaking", "connect4x4", "upwords", "takefour", "scoring", "dictionary"]) {
    const methods = Object.keys(parlor[name]);
    assert.ok(methods.length >= 2, `${name}: ${methods}`);
  }
  assert.equal(typeof parlor.upwords.exportGame, "function");
  assert.equal(parlor.game("takefour"), parlor.takefour);
  await parlor.service(connect4x4.Connect4x4Service).getGame({ gameId: "x" });
  await parlor.call(connect4x4.Connect4x4Service, "getGame", { gameId: "y" });
  assert.deepEqual(requests.map((r) => r.body.gameId), ["x", "y"]);
});

test("a rate limit's refusal says when to retry, and retries wait that long; signing in retries by itself", async () => {
  const limited = () => json(errorBody("RESOURCE_EXHAUSTED", "GUEST_RATE_LIMITED", "at most 1 per second; retry in 0.05 s", { retry_after_seconds: "0.050" }), 429);
  const { fetch, requests } = fakeFetch((_, n) => (n === 1 ? limited() : json({ token: jwt({ sub: "g" }), playerId: "g" })));
  const parlor = new ParlorClient({ baseUrl: BASE, fetch });
  const started = Date.now();
  assert.equal((await parlor.signInAsGuest("Ada")).playerId, "g");
  assert.equal(requests.length, 2);
  assert.ok(Date.now() - started >= 45);
  const once = new ParlorClient({ baseUrl: BASE, fetch: async () => limited() });
  const error = await once.signInAsGuest("Bob", { retries: 0 }).catch((e) => e);
  assert.equal(error.status, "RESOURCE_EXHAUSTED");
  assert.equal(error.retryAfterMs, 50);
  assert.equal(error.transient, false);
});

test("chat posts to a room by the ChatService's path", async () => {
  const { fetch, requests } = fakeFetch(() => json({ message: { messageId: "m1", author: "ada", text: "gg", version: "3" } }));
  const parlor = new ParlorClient({ baseUrl: BASE, fetch, token: "t0" });
  const room = { kind: chat.RoomKind.PLAYERS, gameType: "connect4x4", gameId: "g1" };
  const reply = await parlor.chat.postMessage({ room, text: "gg", commandId: "c1" });
  assert.equal(requests[0].url, `${BASE}/api/parlor.chat.v1.ChatService/PostMessage`);
  assert.deepEqual(requests[0].body, { room: { kind: "ROOM_KIND_PLAYERS", gameType: "connect4x4", gameId: "g1" }, text: "gg", commandId: "c1" });
  assert.equal(reply.message?.version, 3n);
});

test("an account's sign-in holds its access token; completing and renewing are sent once, never retried", async () => {
  const access = jwt({ sub: "acct-1", exp: 2_000_000_000 });
  const renewed = jwt({ sub: "acct-1", exp: 2_000_000_100 });
  const answers = {
    BeginSignIn: () => json({ authorizationUrl: "https://idp.test/authorize?state=s1", state: "s1" }),
    CompleteSignIn: () => json({ accessToken: access, refreshToken: "f.r1", account: { playerId: "acct-1" }, created: true }),
    RenewSession: (n) => (n === 3 ? json(errorBody("UNAVAILABLE", "", "restarting"), 503) : json({ accessToken: renewed, refreshToken: "f.r2" })),
    SignOut: () => json({}),
  };
  const { fetch, requests } = fakeFetch((r, n) => answers[r.url.split("/").pop()](n));
  const parlor = new ParlorClient({ baseUrl: BASE, fetch });
  const begun = await parlor.beginSignIn("keycloak", "http://127.0.0.1:47512/parlor/signed-in");
  assert.equal(begun.state, "s1");
  assert.deepEqual(requests[0].body, { provider: "keycloak", redirectUri: "http://127.0.0.1:47512/parlor/signed-in" });
  const done = await parlor.completeSignIn({ state: "s1", code: "c1", iss: "https://idp.test" });
  assert.equal(done.account?.playerId, "acct-1");
  assert.equal(parlor.token, access);
  assert.equal(parlor.playerId, "acct-1");
  assert.deepEqual(requests[1].body, { state: "s1", code: "c1", iss: "https://idp.test" });

  // a renewal that fails is not sent again, even when asked to retry: the token may be spent
  const failed = await parlor.renewSession("f.r1", { retries: 3 }).catch((e) => e);
  assert.equal(failed.status, "UNAVAILABLE");
  assert.equal(requests.length, 3);
  const next = await parlor.renewSession("f.r1");
  assert.equal(next.refreshToken, "f.r2");
  assert.equal(parlor.token, renewed);
  assert.equal(requests[3].headers.authorization, `Bearer ${access}`);
  await parlor.signOut("f.r2");
  assert.deepEqual(requests[4].body, { refreshToken: "f.r2" });
  assert.equal(parlor.token, "");
  assert.equal(parlor.signInUrl("key cloak"), `${BASE}/auth/sign-in?provider=key%20cloak`);
});

test("handles asks GetPlayers in batches of 100 and keeps only the players that have one", async () => {
  const { fetch, requests } = fakeFetch((r) => json({ players: r.body.playerIds.map((id) => ({ playerId: id, handle: id.startsWith("acct-") ? `h${id.slice(5)}` : "" })) }));
  const parlor = new ParlorClient({ baseUrl: BASE, fetch, token: "t" });
  const ids = [...Array.from({ length: 150 }, (_, i) => `acct-${i}`), "guest-1", "bot:random", "acct-0"];
  const handles = await parlor.handles(ids);
  assert.deepEqual(requests.map((r) => r.body.playerIds.length), [100, 52]);
  assert.equal(handles.size, 150);
  assert.equal(handles.get("acct-7"), "h7");
  assert.equal(handles.has("guest-1"), false);
});

test("password sign-up and sign-in hold the access token and are sent once; claiming is sent once; erasing drops the token", async () => {
  const access = jwt({ sub: "acct-2", exp: 2_000_000_000 });
  const answers = {
    SignUpWithPassword: () => json({ accessToken: access, refreshToken: "f.r1", account: { playerId: "acct-2", handle: "ada" }, created: true }),
    SignInWithPassword: () => json(errorBody("UNAVAILABLE", "", "restarting"), 503),
    ClaimGuest: () => json(errorBody("UNAVAILABLE", "", "restarting"), 503),
    ListSessions: () => json({ sessions: [{ sessionId: "f", client: "phone" }] }),
    SignOutEverywhere: () => json({ revoked: 2 }),
    EraseAccount: () => json({}),
  };
  const { fetch, requests } = fakeFetch((r) => answers[r.url.split("/").pop()]());
  const parlor = new ParlorClient({ baseUrl: BASE, fetch });
  const made = await parlor.signUpWithPassword({ handle: "ada", password: "correct horse battery", client: "phone" });
  assert.equal(made.account?.handle, "ada");
  assert.equal(parlor.token, access);
  assert.deepEqual(requests[0].body, { handle: "ada", password: "correct horse battery", client: "phone" });
  const failed = await parlor.signInWithPassword({ handle: "ada", password: "x" }, { retries: 3 }).catch((e) => e);
  assert.equal(failed.status, "UNAVAILABLE");
  assert.equal(requests.length, 2); // each attempt counts towards the lock-out: never sent again
  const unclaimed = await parlor.claimGuest("guest.token", { retries: 3 }).catch((e) => e);
  assert.equal(unclaimed.status, "UNAVAILABLE");
  assert.equal(requests.length, 3);
  assert.deepEqual(requests[2].body, { guestToken: "guest.token" });
  assert.deepEqual((await parlor.sessions()).map((s) => s.client), ["phone"]);
  assert.equal(await parlor.signOutEverywhere(), 2);
  await parlor.eraseAccount();
  assert.equal(requests.at(-1).url, `${BASE}/api/parlor.identity.v1.IdentityService/EraseAccount`);
  assert.equal(parlor.token, "");
});

test("abortGame posts the game's AbortGame with a command id, and a refusal says why", async () => {
  const { fetch, requests } = fakeFetch(() => json({ game: { gameId: "g1", aborted: true, status: "STATUS_ABORTED" } }));
  const parlor = new ParlorClient({ baseUrl: BASE, fetch, token: "t0" });
  const reply = await parlor.abortGame("connect4x4", "g1", { seat: 1 });
  assert.equal(requests[0].url, `${BASE}/api/parlor.connect4x4.v1.Connect4x4Service/AbortGame`);
  assert.equal(requests[0].body.gameId, "g1");
  assert.equal(requests[0].body.seat, 1);
  assert.match(requests[0].body.commandId, /^[0-9a-f-]{36}$/);
  assert.equal(reply.game?.aborted, true);
  assert.equal(reply.game?.status, connect4x4.Status.ABORTED);
  const late = new ParlorClient({ baseUrl: BASE, fetch: fakeFetch(() => json(errorBody("FAILED_PRECONDITION", "ABORT_TOO_LATE", "started"), 400)).fetch });
  await assert.rejects(late.abortGame("upwords", "g2"), (e) => isParlorError(e, "ABORT_TOO_LATE"));
});

test("berserkGame posts the game's BerserkGame with a command id, and a refusal says why", async () => {
  const { fetch, requests } = fakeFetch(() => json({ game: { gameId: "g1" } }));
  const parlor = new ParlorClient({ baseUrl: BASE, fetch, token: "t0" });
  const reply = await parlor.berserkGame("takefour", "g1", { seat: 0 });
  assert.equal(requests[0].url, `${BASE}/api/parlor.takefour.v1.TakeFourService/BerserkGame`);
  assert.equal(requests[0].body.gameId, "g1");
  assert.equal(requests[0].body.seat, 0);
  assert.match(requests[0].body.commandId, /^[0-9a-f-]{36}$/);
  assert.equal(reply.game?.gameId, "g1");
  const late = new ParlorClient({ baseUrl: BASE, fetch: fakeFetch(() => json(errorBody("FAILED_PRECONDITION", "BERSERK_TOO_LATE", "moved"), 400)).fetch });
  await assert.rejects(late.berserkGame("connect4x4", "g2"), (e) => isParlorError(e, "BERSERK_TOO_LATE"));
});
