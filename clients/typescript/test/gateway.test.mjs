// The client against a real web gateway in front of real services: PARLOR_WEB_URL names it
// (tests/web/test_ts_package.py starts one and runs `npm test`; by hand: `make run`, then
// PARLOR_WEB_URL=http://localhost:8080 npm test). Skipped without it.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { connect4x4, isParlorError, matchmaking, ParlorClient, takefour, upwords } from "@parlor/client";

const BASE = process.env.PARLOR_WEB_URL;
const skip = BASE ? false : "PARLOR_WEB_URL is not set (a web gateway to play against)";

async function guest(name) {
  const parlor = new ParlorClient({ baseUrl: BASE });
  await parlor.signInAsGuest(name);
  return parlor;
}

// Every update of a game until `until` says so, in the background; the test's signal stops
// it (so a failed test leaves no connection open).
function follow(parlor, type, gameId, until, signal) {
  return (async () => {
    const seen = [];
    for await (const update of parlor.watchGame(type, gameId, { waitForGameMs: 10_000, signal })) {
      seen.push(update);
      if (until(update)) break;
    }
    return seen;
  })();
}

test("a guest is refused a game it does not sit in, then plays Connect 4x4 against a bot to the end while watching it", { skip, timeout: 120_000 }, async (t) => {
  const stop = new AbortController();
  t.after(() => stop.abort());
  const ada = await guest("Ada");
  assert.ok(ada.playerId);
  const refused = await ada.connect4x4
    .createGame({ seats: [{ index: 0, playerId: "someone-else" }, { index: 1, playerId: "bot:random" }] })
    .catch((e) => e);
  assert.ok(isParlorError(refused, "NOT_SEATED"), String(refused));
  assert.equal(refused.status, "PERMISSION_DENIED");
  assert.equal(refused.domain, "parlor.dev");

  const { game } = await ada.connect4x4.createGame({
    seats: [{ index: 0, playerId: ada.playerId, displayName: "Ada" }, { index: 1, playerId: "bot:random" }],
    commandId: randomUUID(),
  });
  assert.ok(game);
  const over = (u) => u.event?.body.case === "gameFinished";
  const watching = follow(ada, "connect4x4", game.gameId, over, stop.signal);
  let now = game;
  let moves = 0;
  while (now.status === connect4x4.Status.IN_PROGRESS) {
    assert.equal(now.turn, 0, "the bot has answered before the reply");
    const reply = await ada.connect4x4.playMove({ gameId: now.gameId, move: now.legalMoves[0], commandId: randomUUID() });
    now = reply.game;
    moves++;
  }
  assert.ok([connect4x4.Status.WON, connect4x4.Status.TIED].includes(now.status));
  const seen = await watching;
  const last = seen.at(-1);
  assert.equal(last.game?.version, now.version, "the watch saw the game to its last event");
  assert.deepEqual(
    seen.map((u) => u.event?.info?.version),
    seen.map((_, i) => BigInt(i + 1)),
    "every event once, in order",
  );
  assert.ok(moves >= 4);

  const illegal = await ada.connect4x4.playMove({ gameId: now.gameId, move: "df", commandId: randomUUID() }).catch((e) => e);
  assert.ok(isParlorError(illegal), String(illegal));
  assert.equal(illegal.status, "FAILED_PRECONDITION");

  const fresh = await ada.refreshToken();
  assert.equal(ada.token, fresh);
});

test("two guests meet by matchmaking and each sees the other's move", { skip, timeout: 120_000 }, async (t) => {
  const stop = new AbortController();
  t.after(() => stop.abort());
  const [ada, bob] = await Promise.all([guest("Ada"), guest("Bob")]);
  const ask = { gameType: "connect4x4", minPlayers: 2, maxPlayers: 2 };
  const a = await ada.matchmaking.createTicket(ask);
  assert.equal(a.ticket?.status, matchmaking.TicketStatus.WAITING);
  const b = await bob.matchmaking.createTicket(ask);
  const [ta, tb] = await Promise.all([ada.waitForMatch(a.ticket.ticketId), bob.waitForMatch(b.ticket.ticketId)]);
  assert.equal(ta.matchId, tb.matchId);
  assert.equal(ta.gameType, "connect4x4");
  assert.notEqual(ta.seat, tb.seat);

  const players = { [ta.seat]: ada, [tb.seat]: bob };
  let first;
  for await (const u of ada.watchGame("connect4x4", ta.matchId, { waitForGameMs: 10_000, signal: stop.signal })) {
    first = u.game;
    if (first?.status === connect4x4.Status.IN_PROGRESS) break; // closes its connection
  }
  const mover = players[first.turn];
  const other = players[1 - first.turn];
  const watching = follow(other, "connect4x4", ta.matchId, (u) => u.event?.body.case === "checkerDropped", stop.signal);
  const move = first.legalMoves[0];
  await mover.connect4x4.playMove({ gameId: ta.matchId, move, commandId: randomUUID() });
  const seen = await watching;
  assert.equal(seen.at(-1).event?.notation, move);
  const notMine = await other.connect4x4.playMove({ gameId: ta.matchId, move, commandId: randomUUID(), seat: first.turn }).catch((e) => e);
  assert.ok(isParlorError(notMine), String(notMine));
});

test("each game type answers through its client: Upwords hides the other racks, Take Four deals hands", { skip, timeout: 120_000 }, async () => {
  const ada = await guest("Ada");
  const me = { index: 0, playerId: ada.playerId, displayName: "Ada" };
  const uw = await ada.upwords.createGame({ seats: [me, { index: 1, playerId: "bot:random" }], commandId: randomUUID() });
  assert.equal(uw.game?.status, upwords.Status.IN_PROGRESS);
  const { game } = await ada.upwords.getGame({ gameId: uw.game.gameId });
  assert.equal(game?.viewerSeat, 0);
  assert.ok(game.rack.length > 0, "her own rack");
  assert.deepEqual(game.racks, [], "no one else's");
  const bob = await guest("Bob");
  const watched = await bob.upwords.getGame({ gameId: uw.game.gameId });
  assert.equal(watched.game?.viewerSeat, undefined);
  assert.deepEqual(watched.game?.rack, [], "a spectator sees no rack");

  const tf = await ada.takefour.createGame({ seats: [me, { index: 1, playerId: "bot:easy" }], commandId: randomUUID() });
  assert.equal(tf.game?.viewerSeat, 0);
  assert.notEqual(tf.game.phase, takefour.Phase.UNSPECIFIED);
});

test("examples/bot-match.mjs is matched with a bot at once and plays the game to its end", { skip, timeout: 120_000 }, async () => {
  const { execFile } = await import("node:child_process");
  const { fileURLToPath } = await import("node:url");
  const here = fileURLToPath(new URL("..", import.meta.url));
  const out = await new Promise((resolve, reject) =>
    execFile(process.execPath, ["examples/bot-match.mjs"], { cwd: here, env: { ...process.env, LEVEL: "random" }, timeout: 100_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error}\n${stdout}\n${stderr}`)) : resolve(stdout),
    ),
  );
  assert.match(out, /^connect4x4: 2-4 players, bots random, /m); // ListGameTypes
  assert.match(out, /^game \S+: you \(\S+, seat \d\) against bot:random$/m);
  assert.match(out, /^(you win|bot:random wins|a tie) \(\w+\) after \d+ moves$/m);
});

test("a guest has no account and no handle; a sign-in with a provider the platform does not know is refused", { skip, timeout: 60_000 }, async () => {
  const ada = await guest("Ada");
  const notAccount = await ada.account().catch((e) => e);
  assert.ok(isParlorError(notAccount, "NOT_AN_ACCOUNT"), String(notAccount));
  assert.equal(notAccount.status, "FAILED_PRECONDITION");
  const handles = await ada.handles([ada.playerId, "bot:random"]);
  assert.equal(handles.size, 0);
  // a tokenless call, as the guest's sign-in was: retried past the per-address limit of those
  const unknown = await new ParlorClient({ baseUrl: BASE }).beginSignIn("nowhere", "http://127.0.0.1:9/x", { retries: 3 }).catch((e) => e);
  assert.ok(isParlorError(unknown, "UNKNOWN_PROVIDER"), String(unknown));
});

// A tokenless call (the password ones) sent again only when the platform's limit on those
// refused it, after the wait it names: refused there, it never reached the account.
async function unlimited(call) {
  for (;;) {
    try {
      return await call();
    } catch (e) {
      if (e?.reason !== "RATE_LIMITED" || e.retryAfterMs === undefined) throw e;
      await new Promise((done) => setTimeout(done, e.retryAfterMs));
    }
  }
}

test("a built-in account signs up, claims the guest it played as, lists and ends its sessions, and is erased", { skip, timeout: 120_000 }, async () => {
  const ada = await guest("Ada");
  const game = await ada.connect4x4.createGame({ seats: [{ index: 0, playerId: ada.playerId }, { index: 1, playerId: "bot:random" }], commandId: randomUUID() });
  const handle = `ts${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const phone = new ParlorClient({ baseUrl: BASE });
  const short = await unlimited(() => phone.signUpWithPassword({ handle, password: "short" })).catch((e) => e);
  assert.ok(isParlorError(short, "PASSWORD_TOO_SHORT"), String(short));
  const made = await unlimited(() => phone.signUpWithPassword({ handle, password: "correct horse battery", client: "phone" }));
  assert.equal(made.created, true);
  assert.equal(phone.token, made.accessToken);
  const me = made.account.playerId;
  const laptop = new ParlorClient({ baseUrl: BASE });
  const wrong = await unlimited(() => laptop.signInWithPassword({ handle, password: "not the password" })).catch((e) => e);
  assert.ok(isParlorError(wrong, "SIGN_IN_FAILED"), String(wrong));
  await unlimited(() => laptop.signInWithPassword({ handle, password: "correct horse battery", client: "laptop" }));
  assert.equal(laptop.playerId, me);
  assert.deepEqual((await phone.sessions()).map((s) => s.client), ["laptop", "phone"]);

  const claimed = await phone.claimGuest(ada.token);
  assert.equal(claimed.guestId, ada.playerId);
  const again = await laptop.claimGuest(ada.token).catch((e) => e);
  assert.ok(isParlorError(again, "GUEST_CLAIMED"), String(again));
  const { games } = await phone.connect4x4.listGames({ playerId: me });
  assert.ok(games.some((g) => g.gameId === game.game?.gameId), "the guest's game is the account's");
  const seat = await phone.claimedGuestToken(ada.playerId);
  assert.equal(new ParlorClient({ baseUrl: BASE, token: seat }).playerId, ada.playerId);

  assert.equal(await laptop.signOutEverywhere(), 2);
  assert.deepEqual(await phone.sessions(), []);
  const revoked = await unlimited(() => phone.renewSession(made.refreshToken)).catch((e) => e);
  assert.ok(isParlorError(revoked, "REFRESH_TOKEN_REVOKED"), String(revoked));
  await phone.eraseAccount();
  assert.equal(phone.token, "");
  assert.equal((await ada.handles([me])).size, 0);
});
