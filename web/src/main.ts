// Parlor in the browser: guest or account sign-in, the lobby, the account page, and each
// game's live and replay pages.
// Routes live in the URL's fragment: #/ (lobby), #/account, #/leaderboards, #/tournaments,
// #/tournament/<id>, #/play/<type>/<id>, #/replay/<type>/<id>;
// a private game's spectator invite is a last part of the two (#/play/<type>/<id>/<invite>).
import { ApiError, stream, unary, type Stream } from "./api";
import { h, notice, replace } from "./dom";
import type { TimeControl } from "@parlor/client/gen/parlor/common/v1/common_pb";
import { IdentityService } from "@parlor/client/gen/parlor/identity/v1/identity_pb";
import { MatchmakingService, TicketStatus, type Ticket } from "@parlor/client/gen/parlor/matchmaking/v1/matchmaking_pb";
import { BOARDS } from "./boards";
import { controlLabel } from "./clock";
import { ticketState, waitLine } from "./ticket";
import { IN_PROGRESS_HEADING, openGamesRefusal, opponents } from "./opengames";
import { configControls } from "./gameconfig";
import { botChoices, ticketChoices, type Choices } from "./timecontrol";
import { nextAfter, waitingOfAll, yourTurnCard, type GameLike as TurnView, type Listed } from "./yourturn";
import { createAgainstBots, describe, gameHref, livePage, replayPage, type GameKind, type GameLike } from "./play";
import { nextGame } from "./nextgame";
import { tournamentPage, tournamentsPage } from "./tournaments";
import * as session from "./session";
import { challengeButton, inboxCard } from "./inbox";
import * as accounts from "./account";
import { lookUp, nameOf, remember } from "./names";
import { leaderboardsPage } from "./leaderboard";

const KINDS: GameKind<GameLike>[] = BOARDS as unknown as GameKind<GameLike>[];
const kindOf = (type: string) => KINDS.find((k) => k.type === type);

// A game the lobby offers: one matchmaking lists (ListGameTypes: its seat range, bots and
// time controls, from the game's declaration) that this page can draw.
interface Offered {
  kind: GameKind<GameLike>;
  bots: string[]; // player ids: "bot:<level>", weakest first
  players: [number, number];
  timeControls: TimeControl[]; // offered, in the server's order
  defaultTimeControl: TimeControl | undefined;
}
let offered: Promise<Offered[]> | undefined;

function gameTypes(): Promise<Offered[]> {
  offered ??= unary(MatchmakingService, "listGameTypes", {}).then(
    (r) =>
      r.gameTypes.flatMap((t) => {
        const kind = kindOf(t.name);
        if (!kind) return [];
        const players: [number, number] = [t.minPlayers, t.maxPlayers];
        return [{ kind, bots: t.botLevels.map((b) => `bot:${b}`), players, timeControls: t.timeControls, defaultTimeControl: t.defaultTimeControl }];
      }),
    (err) => {
      offered = undefined; // asked again on the next visit to the lobby
      throw err;
    },
  );
  return offered;
}

const main = document.getElementById("main")!;
const who = document.getElementById("who")!;
let leave: (() => void) | undefined;
let refreshing: (() => void) | undefined;
let refreshingFor = "";
let offeredProviders: Promise<string[]> | undefined;
const providerNames = () => (offeredProviders ??= accounts.providers());

function go(hash: string): void {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function route(): void {
  leave?.();
  leave = undefined;
  notice("");
  const me = session.load();
  if (!me) {
    const held = session.stored();
    if (held?.account && !resumed.has(held.token)) {
      resumed.add(held.token);
      void resume().then(route);
      return;
    }
    replace(who);
    signIn();
    return;
  }
  if (refreshingFor !== me.playerId) {
    refreshing?.();
    refreshingFor = me.playerId;
    refreshing = session.keepFresh(me, async (token) => {
      if (!me.account) return (await unary(IdentityService, "refreshToken", {})).token;
      const renewed = await accounts.renew(session.stored, token);
      if (!renewed) throw new Error("signed out");
      return renewed.token;
    });
  }
  replace(
    who,
    me.account ? "Signed in as " : "Playing as guest ",
    h("span", { id: "who-name" }, me.name || "(no handle yet)"),
    " ",
    h("a", { href: "#/" }, "Lobby"),
    " · ",
    h("a", { href: "#/leaderboards", id: "leaderboards-link" }, "Leaderboards"),
    " · ",
    h("a", { href: "#/tournaments", id: "tournaments-link" }, "Tournaments"),
    " · ",
    h("a", { href: "#/account", id: "account-link" }, "Account"),
    " · ",
    h("button", { class: "link", id: "sign-out", onclick: () => void signOut(me) }, "Sign out"),
  );
  const [, page, type, id, invite] = location.hash.split("/");
  const kind = type ? kindOf(type) : undefined;
  const shared = invite ? decodeURIComponent(invite) : "";
  if (page === "leaderboards") leave = withGames((games) => leaderboardsPage(main, games.map((g) => g.kind)));
  else if (page === "tournaments" || (page === "tournament" && type)) {
    leave = withGames((games) => {
      const choices = games.map((g) => ({ type: g.kind.type, label: g.kind.label, bots: g.bots }));
      return page === "tournaments" ? tournamentsPage(main, choices) : tournamentPage(main, decodeURIComponent(type), me.playerId, choices, me.account ? "" : me.name);
    });
  } else if (page === "account") {
    void providerNames().then((names) => {
      if (location.hash !== "#/account") return;
      accounts.accountPage(main, me, names, (handle) => {
        remember(me.playerId, handle);
        me.name = handle;
        session.save(me);
        replace(document.getElementById("who-name") ?? who, handle);
      }, () => void signOut(me), () => go("#/account"));
    });
  } else if (page === "play" && kind && id) {
    const gameId = decodeURIComponent(id);
    const next = nextGame(
      async () => nextAfter(await waitingOfAll(await myGames(me.playerId), me.playerId), gameId),
      (w) => go(gameHref("play", w.type, w.gameId)),
    );
    leave = livePage(main, kind, gameId, me.playerId, shared, next);
  }
  else if (page === "replay" && kind && id) leave = replayPage(main, kind, decodeURIComponent(id), me.playerId, shared);
  else leave = lobby(me);
}

// A page drawn once the games offered are known (`show` returns how to close it); the
// returned function leaves it, before or after.
function withGames(show: (games: Offered[]) => () => void): () => void {
  let close = () => {};
  let gone = false;
  void gameTypes().then(
    (games) => {
      if (!gone) close = show(games);
    },
    (err) => notice(`No games offered: ${describe(err)}`, "error"),
  );
  return () => {
    gone = true;
    close();
  };
}

// Signing out: an account's session is ended at the service too (the bridge's cookie with it).
async function signOut(me: session.Session): Promise<void> {
  if (me.account) {
    try {
      await accounts.signOut();
    } catch (err) {
      notice(`Not signed out: ${describe(err)}`, "error");
      return;
    }
  }
  session.clear();
  refreshing?.();
  refreshingFor = "";
  go("#/");
}

function signIn(): void {
  const name = h("input", { id: "guest-name", placeholder: "Your name", maxlength: 64, required: true, autofocus: true }) as HTMLInputElement;
  const form = h(
    "form",
    { class: "card", id: "sign-in" },
    h("h2", {}, "Play as a guest"),
    h("label", {}, "Name ", name),
    h("button", { type: "submit" }, "Sign in"),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const r = await unary(IdentityService, "issueGuestToken", { displayName: name.value.trim() });
      session.save({ token: r.token, playerId: r.playerId, name: name.value.trim() || r.playerId });
      go("#/");
    } catch (err) {
      notice(describe(err), "error");
    }
  });
  replace(main, form);
  void providerNames().then((names) => {
    if (form.isConnected) form.after(accounts.signInLinks(names) ?? "");
  });
  void accounts.passwordCard(() => go("#/account")).then((card) => card && form.isConnected && main.append(card));
}

function select(id: string, options: string[], labels?: string[]): HTMLSelectElement {
  return h("select", { id }, options.map((o, i) => h("option", { value: o }, labels?.[i] ?? o))) as HTMLSelectElement;
}

// A time-control select whose options follow the chosen game; `chosen()` is what to send.
function timeControlSelect(id: string, of: () => Choices | undefined): { el: HTMLSelectElement; refresh(): void; chosen(): TimeControl | undefined } {
  const el = h("select", { id }) as HTMLSelectElement;
  let current: Choices | undefined;
  return {
    el,
    refresh() {
      current = of();
      replace(el, (current?.choices ?? []).map((c, i) => h("option", { value: String(i) }, c.label)));
      if (current) el.value = String(current.selected);
    },
    chosen: () => current?.choices[Number(el.value)]?.control,
  };
}

function gameSelect(id: string, games: Offered[]): HTMLSelectElement {
  return select(id, games.map((g) => g.kind.type), games.map((g) => g.kind.label));
}

function lobby(me: session.Session): () => void {
  let left = false;
  let close = () => {};
  gameTypes().then(
    (games) => {
      if (!left) close = lobbyOf(me, games);
    },
    (err) => {
      if (left) return;
      close = lobbyOf(me, []);
      notice(`No games offered: ${describe(err)}`, "error");
    },
  );
  return () => {
    left = true;
    close();
  };
}

function lobbyOf(me: session.Session, games: Offered[]): () => void {
  const streams: Stream[] = [];
  // A refusal of a new game: one for holding too many unfinished games is said in words, and
  // the list of them is brought up to date and into view.
  const refused = (err: unknown) => {
    const tooMany = openGamesRefusal(err, KINDS);
    notice(tooMany ?? describe(err), "error");
    if (tooMany) {
      void listings();
      openCard.scrollIntoView({ block: "nearest" });
    }
  };
  const offeredOf = (type: string) => games.find((g) => g.kind.type === type);
  // an account's handle stays out of game events (they cannot be erased): its seat is named
  // by the player id, and the handle is looked up when shown
  const seat = { index: 0, playerId: me.playerId, displayName: me.account ? "" : me.name };

  // Against bots: a game created at once, the other seats bots of the chosen level.
  const botGame = gameSelect("bot-game", games);
  const botLevel = h("select", { id: "bot-level" }) as HTMLSelectElement;
  const botCount = h("input", { id: "bot-count", type: "number", min: 1, max: 3, value: 1 }) as HTMLInputElement;
  const botConfig = configControls("bot");
  const botClock = timeControlSelect("bot-time-control", () => {
    const game = offeredOf(botGame.value);
    return game && botChoices(game.timeControls, game.defaultTimeControl);
  });
  const levels = () => {
    const game = offeredOf(botGame.value);
    botClock.refresh();
    replace(botLevel, (game?.bots ?? []).map((b) => h("option", { value: b }, b.slice(4))));
    botCount.max = String((game?.players[1] ?? 2) - 1);
    botConfig.show(botGame.value, 1 + Math.max(1, Number(botCount.value) || 1));
  };
  botGame.addEventListener("change", levels);
  botCount.addEventListener("change", () => botConfig.show(botGame.value, 1 + Math.max(1, Number(botCount.value) || 1)));
  levels();
  const botForm = h(
    "form",
    { class: "card", id: "vs-bots" },
    h("h3", {}, "Play against bots"),
    h("label", {}, "Game ", botGame),
    h("label", {}, "Bot ", botLevel),
    h("label", {}, "Bots ", botCount),
    h("label", {}, "Clock ", botClock.el),
    botConfig.el,
    h("button", { type: "submit", id: "start-bot-game" }, "Start"),
  );
  botForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const game = offeredOf(botGame.value);
    if (!game) return;
    const { kind } = game;
    try {
      const n = Math.max(1, Math.min(Number(botCount.value) || 1, game.players[1] - 1));
      const config = botConfig.value();
      if (typeof config === "string") return notice(config, "error");
      const id = await createAgainstBots(kind, seat, Array(n).fill(botLevel.value), config ?? {}, botClock.chosen());
      go(`#/play/${kind.type}/${id}`);
    } catch (err) {
      refused(err);
    }
  });

  // Matchmaking and private lobbies: a ticket, followed until it has a game.
  const ticketEl = h("p", { class: "ticket", id: "ticket" });
  const follow = (ticket: Ticket, code = "") => {
    // the wait and the bots' countdown, told again each second while the ticket waits
    const waitEl = h("span", { id: "ticket-wait" });
    let shown = ticket;
    const tick = () => replace(waitEl, waitLine(shown, Date.now()) ? ` · ${waitLine(shown, Date.now())}` : "");
    const timer = window.setInterval(() => {
      if (!ticketEl.isConnected || shown.status !== TicketStatus.WAITING) window.clearInterval(timer);
      else tick();
    }, 1000);
    const show = (t: Ticket) => {
      shown = t;
      tick();
      replace(
        ticketEl,
        code ? h("span", {}, "Invite code ", h("code", { id: "lobby-code" }, code), " · ") : null,
        `Ticket ${ticketState(t.status)}`,
        waitEl,
        t.timeControl && controlLabel(t.timeControl) ? ` · ${controlLabel(t.timeControl)}` : "",
        t.status === TicketStatus.WAITING
          ? h("button", { class: "link", onclick: () => void unary(MatchmakingService, "cancelTicket", { ticketId: t.ticketId }).catch((err) => notice(describe(err), "error")) }, "cancel")
          : null,
      );
      if (t.status === TicketStatus.MATCHED && t.matchId) go(`#/play/${t.gameType}/${t.matchId}`);
    };
    show(ticket);
    streams.push(
      stream(MatchmakingService, "watchTicket", { ticketId: ticket.ticketId }, {
        message: (r) => r.ticket && show(r.ticket),
        error: (err) => notice(describe(err), "error"),
      }),
    );
  };
  const mmGame = gameSelect("mm-game", games);
  const mmMin = h("input", { id: "mm-min", type: "number", min: 2, max: 8, value: 2 }) as HTMLInputElement;
  const mmMax = h("input", { id: "mm-max", type: "number", min: 2, max: 8, value: 2 }) as HTMLInputElement;
  const mmClock = timeControlSelect("mm-time-control", () => {
    const game = offeredOf(mmGame.value);
    return game && ticketChoices(game.timeControls, game.defaultTimeControl);
  });
  mmGame.addEventListener("change", () => mmClock.refresh());
  mmClock.refresh();
  const ask = async (kind: "ticket" | "lobby") => {
    try {
      const timeControl = mmClock.chosen(); // none: the game type's default
      const req = { gameType: mmGame.value, minPlayers: Number(mmMin.value), maxPlayers: Number(mmMax.value), ...(timeControl ? { timeControl } : {}) };
      if (kind === "ticket") {
        const r = await unary(MatchmakingService, "createTicket", req);
        if (r.ticket) follow(r.ticket);
      } else {
        const r = await unary(MatchmakingService, "createLobby", req);
        if (r.ticket) follow(r.ticket, r.code);
      }
    } catch (err) {
      refused(err);
    }
  };
  const code = h("input", { id: "join-code", placeholder: "Invite code", size: 14 }) as HTMLInputElement;
  const matchCard = h(
    "div",
    { class: "card", id: "matchmaking" },
    h("h3", {}, "Find players"),
    h("label", {}, "Game ", mmGame),
    h("label", {}, "Players from ", mmMin, " to ", mmMax),
    h("label", {}, "Clock ", mmClock.el),
    h("button", { id: "find-game", onclick: () => void ask("ticket") }, "Find a game"),
    h("button", { id: "create-lobby", onclick: () => void ask("lobby") }, "Create a private lobby"),
    h("p", { class: "hint" }, "Seats still empty after the server's wait are filled with bots."),
    h(
      "form",
      {
        id: "join-lobby",
        onsubmit: async (e: Event) => {
          e.preventDefault();
          try {
            const r = await unary(MatchmakingService, "joinLobby", { code: code.value.trim() });
            if (r.ticket) follow(r.ticket, code.value.trim());
          } catch (err) {
            refused(err);
          }
        },
      },
      code,
      h("button", { type: "submit" }, "Join"),
    ),
    ticketEl,
  );

  // Your games in progress (to resume, or to end: each player may hold only so many of a type
  // unfinished), games to watch and your finished games, from every game service's listing.
  const openEl = h("ul", { class: "games", id: "my-open-games" });
  const liveEl = h("ul", { class: "games", id: "live-games" });
  const mineEl = h("ul", { class: "games", id: "my-games" });
  const openCard = h(
    "section",
    { class: "card", id: "in-progress" },
    h("h3", {}, `${IN_PROGRESS_HEADING} `, h("button", { class: "link", id: "refresh-games", onclick: () => void listings() }, "refresh")),
    openEl,
  );
  const turns = yourTurnCard();
  const listings = async () => {
    const waiting: Listed[] = [];
    const open: Node[] = [];
    const live: Node[] = [];
    const mine: Node[] = [];
    const listed = (kind: GameKind<GameLike>, request: Record<string, unknown>) =>
      unary(kind.service, "listGames", { pageSize: 20, ...request }) as unknown as Promise<{ games: Summary[]; nextPageToken: string }>;
    for (const kind of KINDS) {
      try {
        const [going, all, done] = await Promise.all([
          listed(kind, { playerId: me.playerId, inProgressOnly: true }),
          listed(kind, { inProgressOnly: true }),
          listed(kind, { playerId: me.playerId, finishedOnly: true }),
        ]);
        // every player of these games by handle, when they have one
        await lookUp([going, all, done].flatMap((l) => l.games.flatMap((g) => g.seats.map((s) => s.playerId))));
        for (const g of going.games) open.push(inProgress(kind, g, me.playerId));
        for (const g of going.games) waiting.push(listedOf(kind, g.gameId));
        if (going.nextPageToken) open.push(h("li", { class: "hint" }, `${kind.label}: only the ${going.games.length} newest are shown`));
        for (const g of all.games) live.push(entry(kind, g, "play", "Watch"));
        for (const g of done.games) mine.push(entry(kind, g, "replay", "Replay"));
      } catch (err) {
        // a platform may serve only some games (UNIMPLEMENTED): those simply have none here
        if (!(err instanceof ApiError && err.status === "UNIMPLEMENTED"))
          live.push(h("li", { class: "error" }, `${kind.label}: ${describe(err)}`));
      }
    }
    replace(openEl, open.length ? open : [h("li", {}, "None: every game you started has ended.")]);
    replace(liveEl, live.length ? live : [h("li", {}, "No game in progress.")]);
    replace(mineEl, mine.length ? mine : [h("li", {}, "None yet.")]);
    await turns.update(waiting, me.playerId);
  };
  void listings();

  const challenges = inboxCard(
    games.map((g) => ({ type: g.kind.type, label: g.kind.label, timeControls: g.timeControls, defaultTimeControl: g.defaultTimeControl })),
    (type, gameId) => go(`#/play/${type}/${gameId}`),
    () => void listings(), // "your turn" in one of my games
  );
  streams.push(challenges);
  replace(
    main,
    h("div", { class: "lobby" }, botForm, matchCard),
    challenges.el,
    turns.el,
    h("div", { class: "lobby" }, openCard, h("section", { class: "card" }, h("h3", {}, "Your finished games"), mineEl)),
    h("section", { class: "card" }, h("h3", {}, "Live games"), liveEl),
  );
  return () => streams.forEach((s) => s.close());
}

// The player's games in progress of every game type (ListGames), as "Your turn" and "Next
// game" read them; a game type the platform does not serve has none.
async function myGames(me: string): Promise<Listed[]> {
  const lists = await Promise.all(
    KINDS.map(async (kind) => {
      try {
        const r = (await unary(kind.service, "listGames", { pageSize: 50, playerId: me, inProgressOnly: true })) as unknown as { games: Summary[] };
        return r.games.map((g) => listedOf(kind, g.gameId));
      } catch {
        return [];
      }
    }),
  );
  return lists.flat();
}

function listedOf(kind: GameKind<GameLike>, gameId: string): Listed {
  return { type: kind.type, label: kind.label, gameId, read: () => unary(kind.service, "getGame", { gameId }) as unknown as Promise<{ game?: TurnView }> };
}

interface Summary {
  gameId: string;
  seats: { displayName: string; playerId: string }[];
  createdAt?: { seconds: bigint };
  finishedAt?: unknown;
  finishReason: string;
}

// One of your games in progress: a link to its page (to play on, or resign), who you play
// and since when.
function inProgress(kind: GameKind<GameLike>, g: Summary, me: string): Node {
  const since = g.createdAt ? new Date(Number(g.createdAt.seconds) * 1000).toLocaleString() : "";
  return h(
    "li",
    {},
    h("a", { href: `#/play/${kind.type}/${g.gameId}`, "data-game": g.gameId }, `Resume: ${kind.label}`),
    ` against ${opponents(g.seats, me, nameOf)}`,
    since ? h("span", { class: "hint" }, ` · started ${since}`) : null,
  );
}

function entry(kind: GameKind<GameLike>, g: Summary, page: string, verb: string): Node {
  const named = (s: Summary["seats"][number], i: number) => {
    const challenge = challengeButton(s); // after the name, so "Ada vs Bob" reads as before
    return h("span", { class: "player" }, i ? " vs " : " ", nameOf(s), challenge ? " " : "", challenge);
  };
  const names = g.seats.map(named);
  return h("li", {}, h("a", { href: `#/${page}/${kind.type}/${g.gameId}`, "data-game": g.gameId }, `${verb}: ${kind.label}`), ...names, g.finishReason ? ` (${g.finishReason.toLowerCase()})` : "");
}

// An account's access token from the bridge, which holds its session: when the provider has
// sent the browser back (#/signed-in), or the token held has expired (a tab asleep past its
// renewal). False when there is none any more (signed out elsewhere, ended, expired: the page
// is a guest's again), or it cannot be had now.
async function resume(): Promise<boolean> {
  const held = session.stored();
  try {
    const renewed = await accounts.renew(session.stored, held?.token ?? "");
    if (renewed) {
      session.save(renewed);
      const a = await accounts.account();
      renewed.name = a?.handle ?? "";
      if (a?.handle) remember(renewed.playerId, a.handle);
      session.save(renewed);
      return true;
    }
    if (held?.account) session.clear();
  } catch (err) {
    notice(`Not signed in: ${describe(err)}`, "error");
  }
  return false;
}
const resumed = new Set<string>(); // the expired tokens a resume was tried for: once each

async function start(): Promise<void> {
  if (location.hash === "#/signed-in") {
    await resume();
    history.replaceState(null, "", "#/account");
  }
  window.addEventListener("hashchange", route);
  route();
}

void start();
