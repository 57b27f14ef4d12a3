// What every game's page shares: follow a game live (WatchGame from the start, resumed after
// a dropped connection), take actions and show refusals, replay a finished game with a
// slider and step buttons, export it. Each game type supplies only how its game is drawn.
import type { GenService, GenServiceMethods } from "@parlor/client";
import type { Clocks, TimeControl } from "@parlor/client/gen/parlor/common/v1/common_pb";
import { ApiError, stream, unary, type Stream } from "./api";
import { controlLabel, faces, millis, ServerTime, timed } from "./clock";
import { chatPanel } from "./chat";
import { h, notice, replace } from "./dom";
import { announce, focusKey, restoreFocus, shortcuts } from "./a11y";
import { challengeButton, rematchButton } from "./inbox";
import { lookUp, nameOf } from "./names";
import type { NextGame } from "./nextgame";
import { rulesPanel } from "./rules";

// What the three games' messages have in common (the fields every Game and GameEvent has).
export interface SeatLike {
  index: number;
  playerId: string;
  displayName: string;
}
export interface GameLike {
  gameId: string;
  version: bigint;
  clocks?: Clocks; // absent for an untimed game
}
export interface EventLike {
  notation: string;
  info?: { version: bigint; type: string };
  body?: { case: string | undefined; value?: unknown };
}

// A move as the move list and the announcer say it: who made it (a seat) and what it was.
export interface Move {
  seat?: number;
  text: string;
}

// The seat an event's body names (every game's move events carry one).
export function eventSeat(event: EventLike | undefined): number | undefined {
  const value = event?.body?.value as { seat?: unknown } | undefined;
  return typeof value?.seat === "number" ? value.seat : undefined;
}
export interface Frame<G> {
  event?: EventLike;
  game?: G;
}

// Drawing context handed to a game type's renderer.
export interface View {
  seat: number | undefined; // the viewer's seat, if seated
  live: boolean; // false in a replay: nothing can be played
  // Runs an action; its answer's game is shown, a refusal's reason too. True when accepted.
  act(run: () => Promise<{ game?: unknown }>): Promise<boolean>;
  rerender(): void;
  // The last move made (its event), for the board to mark; undefined before the first.
  last?: EventLike;
  // False while the connection to the server is lost: nothing can be sent.
  online: boolean;
}

// A game type's pages in the browser. Its seat range and bots are the server's (matchmaking's
// ListGameTypes, read from the game's declaration), not written here again.
export interface GameKind<G extends GameLike> {
  type: string;
  label: string;
  service: GenService<GenServiceMethods>;
  // Who sits where (Connect 4x4 and Upwords list seats; Take Four has a view per seat).
  seats(game: G): SeatLike[];
  // The status line: whose turn, the result.
  status(game: G, view: View): string;
  finished(game: G): boolean;
  board(game: G, view: View): Node;
  // The record of a finished game as text (a game's own notation), when its service has one;
  // `invite`: a private game's spectator invite, for a viewer holding no seat.
  exportText?(gameId: string, invite?: string): Promise<string>;
  // Refusals that mean the command was meant for an older game than the server's (Take
  // Four's ROUND_CHANGED: the round on the screen is over; Upwords' PLAY_CHANGED: another
  // play is pending than the one answered): the page shows the refusal and draws the game as
  // the server has it now, fetched again.
  stale?: readonly string[];
  // An event as a move of the move list (undefined: not a move). By default an event with a
  // notation, by the seat its body names.
  move?(event: EventLike, game: G): Move | undefined;
  // The keyboard shortcuts of the board, listed under it.
  keys?: [string, string][];
  // Every seat plays at once (Take Four): a command never leaves the turn to others, so
  // "Next game" never follows one by itself.
  simultaneous?: boolean;
}

export function moveOf<G extends GameLike>(kind: GameKind<G>, event: EventLike | undefined, game: G): Move | undefined {
  if (!event) return undefined;
  if (kind.move) return kind.move(event, game);
  return event.notation ? { seat: eventSeat(event), text: event.notation } : undefined;
}

// "Ada: df", the move list's and the announcer's words for a move.
export function moveLine(seats: SeatLike[], move: Move): string {
  return move.seat === undefined ? move.text : `${seatName(seats, move.seat)}: ${move.text}`;
}

// The players, for a page's title: "Ada v random bot".
export function playersTitle(seats: SeatLike[]): string {
  return seats.map((s) => s.displayName || s.playerId).join(" v ");
}

// Whether the viewer can send anything now: a live page whose server is there.
export function canAct(view: View): boolean {
  return view.live && view.online;
}

// Whether a refusal is one of `kind.stale`: the game on the screen is out of date.
export function staleRefusal(kind: { stale?: readonly string[] }, error: unknown): boolean {
  return error instanceof ApiError && error.reason !== "" && (kind.stale ?? []).includes(error.reason);
}

export function seatOf(seats: SeatLike[], playerId: string): number | undefined {
  return seats.find((s) => s.playerId === playerId)?.index;
}

export function seatName(seats: SeatLike[], seat: number): string {
  const s = seats.find((x) => x.index === seat);
  return s ? nameOf(s) : `seat ${seat}`;
}

export function describe(error: unknown): string {
  if (error instanceof ApiError) return `${error.message}${error.reason ? ` (${error.reason})` : ""}`;
  return String(error);
}

// Who sits where; in a timed game each seat with its clock (filled in by paintClocks) and the
// time control after them.
function seatsLine(seats: SeatLike[], me: number | undefined, clocks: Clocks | undefined): Node {
  const shown = timed(clocks);
  return h(
    "ul",
    { class: "seats" },
    seats.map((s) =>
      h(
        "li",
        { class: `seat seat-${s.index}${s.index === me ? " me" : ""}` },
        h("span", { class: "swatch" }),
        nameOf(s),
        s.index === me ? null : challengeButton(s),
        shown && clocks.seats.some((c) => c.seat === s.index) ? h("span", { class: "clock", "data-seat": s.index }) : null,
      ),
    ),
    shown ? h("li", { class: "time-control", id: "time-control" }, controlLabel(clocks.timeControl)) : null,
  );
}

// Each seat's clock in `el` at server time `now` (ticking: counting down the running ones).
function paintClocks(el: Element, clocks: Clocks | undefined, now: number, ticking: boolean): void {
  if (!timed(clocks)) return;
  for (const face of faces(clocks, now, ticking)) {
    const span = el.querySelector<HTMLElement>(`.clock[data-seat="${face.seat}"]`);
    if (!span) continue;
    const text = face.timedOut ? "out of time" : face.text;
    if (span.textContent !== text) span.textContent = text;
    span.classList.toggle("running", face.running);
    span.classList.toggle("low", face.low);
    span.classList.toggle("out", face.timedOut);
    span.dataset.ms = String(Math.round(face.ms));
    span.dataset.running = String(face.running);
  }
}

// The page's local clock: monotonic, so a change of the computer's time moves no clock.
const localNow = (): number => performance.now();

function commandId(): string {
  return crypto.randomUUID();
}
export { commandId };

// The live page: the game as it happens, for a player or a spectator.
// A page's address: `invite` (a private game's spectator invite, for a viewer holding no seat)
// rides as the route's last part, `#/play/<type>/<id>/<invite>`.
export function gameHref(page: "play" | "replay", type: string, gameId: string, invite = ""): string {
  return `#/${page}/${type}/${encodeURIComponent(gameId)}${invite ? `/${encodeURIComponent(invite)}` : ""}`;
}

// The live page: the game as it happens, for a player or a spectator (of a private game: one
// who came by its seats' spectator link, `invite`).
// `next`: "Next game" for a seated player (src/nextgame.ts), told of each accepted move.
export function livePage<G extends GameLike>(root: HTMLElement, kind: GameKind<G>, gameId: string, playerId: string, invite = "", next?: NextGame): () => void {
  let game: G | undefined;
  const log: Move[] = [];
  const boardEl = h("div", { class: "board-area" });
  // The status line is a live region: whose turn it is and the result are said when they change.
  const statusEl = h("p", { class: "status", id: "status", role: "status", "aria-live": "polite" });
  const seatsEl = h("div");
  const logEl = h("ol", { class: "log", id: "log", "aria-label": "Moves" });
  const connEl = h("span", { class: "connection" });
  // Losing the server is said where the player looks, above the board, until it is back.
  const banner = h("p", { class: "banner", id: "connection-banner", role: "alert", hidden: true });
  const links = h("p", { class: "links" });
  const titleEl = h("h2", { id: "game-title" }, kind.label);
  const serverTime = new ServerTime();
  const chat = chatPanel(kind.type, gameId, invite);
  let synced = false;
  replace(
    root,
    titleEl,
    seatsEl,
    banner,
    statusEl,
    boardEl,
    links,
    next?.el,
    h("details", { open: true }, h("summary", {}, "Moves ", connEl), logEl),
    kind.keys ? shortcuts([...kind.keys, ...(next ? [["Alt+N", "the next game waiting for your move"] as [string, string]] : [])]) : null,
    rulesPanel(kind.type, kind.label),
    chat.el,
  );

  const view: View = {
    seat: undefined,
    live: true,
    async act(run) {
      notice("");
      try {
        const response = await run();
        if (response.game) apply(response.game as G);
        // a move's answer may hold a bot's reply already: the turn was left to others anyway
        if (response.game && next && view.seat !== undefined && !kind.simultaneous) next.moved(kind.finished(response.game as G));
        return true;
      } catch (e) {
        notice(describe(e), "error");
        if (staleRefusal(kind, e)) await refresh();
        return false;
      }
    },
    rerender: () => draw(),
    online: true,
  };

  // The game as the server has it now, drawn (after a refusal that says the screen is behind).
  async function refresh(): Promise<void> {
    try {
      const answer = (await unary(kind.service, "getGame", { gameId, invite })) as unknown as { game?: G };
      if (answer.game) apply(answer.game);
    } catch {
      // the watch stream brings the game as it is anyway; the refusal is on the screen
    }
  }

  function apply(next: G): void {
    const asOf = millis(next.clocks?.asOf);
    if (asOf !== undefined) serverTime.seen(asOf, localNow());
    if (game && next.version < game.version) return; // an older picture arriving late
    game = next;
    draw();
    if (!synced && timed(next.clocks) && !kind.finished(next)) void sync();
  }

  // The server's time, from a GetGame's round trip: a game in play is answered with its
  // clocks as of the call. Asked when a timed game is first shown and after a reconnect; its
  // picture is not drawn (the stream's is, in order), only its moment is used.
  async function sync(): Promise<void> {
    synced = true;
    try {
      const sent = localNow();
      const answer = (await unary(kind.service, "getGame", { gameId, invite })) as unknown as { game?: G };
      const received = localNow();
      const asOf = millis(answer.game?.clocks?.asOf);
      if (answer.game && asOf !== undefined && !kind.finished(answer.game)) serverTime.roundTrip(asOf, sent, received);
    } catch {
      synced = false; // asked again with the next picture; until then the stream's moments serve
    }
  }

  // The clocks between the server's pictures: the running one counts down, ten times a second.
  function tick(): void {
    if (game) paintClocks(seatsEl, game.clocks, serverTime.at(localNow()), !kind.finished(game));
  }
  const ticker = setInterval(tick, 100);

  function draw(): void {
    if (!game) return;
    const focused = focusKey();
    view.seat = seatOf(kind.seats(game), playerId);
    if (next) next.el.hidden = view.seat === undefined;
    root.dataset.version = String(game.version);
    root.dataset.finished = String(kind.finished(game));
    const seats = kind.seats(game);
    titleEl.textContent = `${kind.label}: ${playersTitle(seats)}`;
    document.title = `${kind.label}: ${playersTitle(seats)} · Parlor`;
    replace(seatsEl, seatsLine(seats, view.seat, game.clocks));
    void lookUp(seats.map((s) => s.playerId)).then((found) => found && draw());
    tick();
    const status = view.online ? kind.status(game, view) : "Connection lost: waiting for the server…";
    if (statusEl.textContent !== status) statusEl.textContent = status;
    replace(boardEl, kind.board(game, view));
    replace(logEl, log.map((m) => h("li", { class: m.seat !== undefined ? `seat-${m.seat}` : "" }, moveLine(seats, m))));
    chat.update(view.seat !== undefined, kind.finished(game));
    restoreFocus(focused);
    if (kind.finished(game)) {
      const replayLink = h("a", { href: gameHref("replay", kind.type, gameId, invite), id: "replay-link" }, "Replay this game");
      replace(links, replayLink, view.seat === undefined ? "" : " ", view.seat === undefined ? "" : rematchButton(kind.type, gameId));
    } else if (view.seat === undefined) {
      replace(links, h("span", { class: "spectating" }, "You are watching."));
    } else if (shared) {
      replace(links, h("a", { href: gameHref("play", kind.type, gameId, shared), id: "spectator-link" }, "Spectator link (this game is private: share it with whoever may watch)"));
    } else {
      replace(links);
      if (!askedInvite) void askInvite();
    }
  }

  // A seat of a private game is given its spectator invite (GetGame): the page offers the
  // link that lets others watch. A public game has none; anyone may watch it.
  let shared = "";
  let askedInvite = false;
  async function askInvite(): Promise<void> {
    askedInvite = true;
    try {
      const answer = (await unary(kind.service, "getGame", { gameId })) as unknown as { spectatorInvite?: string };
      shared = answer.spectatorInvite ?? "";
      if (shared) draw();
    } catch {
      // the link is a convenience; the game plays on without it
    }
  }

  // A matched game is created by its service a moment after the match: until it exists the
  // watch is refused GAME_NOT_FOUND, and is asked again.
  let watch: Stream | undefined;
  let waits = 0;
  let closed = false;
  const follow = (): void => {
    watch = stream(kind.service, "watchGame", { gameId, afterVersion: 0n, invite }, {
      message(item) {
        const frame = item as unknown as Frame<G>;
        const move = frame.game ? moveOf(kind, frame.event, frame.game) : undefined;
        if (move) {
          log.push(move);
          view.last = frame.event;
          announce(moveLine(kind.seats(frame.game!), move));
        }
        // How far the stream (and so the log) has come: a move's reply can show a later game first.
        if (frame.game) {
          root.dataset.streamed = String(frame.game.version);
          apply(frame.game);
        } else draw();
      },
      error(e) {
        if (!game && e instanceof ApiError && e.reason === "GAME_NOT_FOUND" && waits++ < 60 && !closed) {
          statusEl.textContent = "Waiting for the game to start…";
          setTimeout(() => !closed && follow(), 500);
          return;
        }
        notice(describe(e), "error");
      },
      end() {
        connEl.textContent = "";
      },
      connection(up) {
        connEl.textContent = up ? "" : "(reconnecting…)";
        view.online = up;
        banner.hidden = up;
        banner.textContent = up ? "" : "The connection to the server is lost: reconnecting. Moves are paused until it is back.";
        root.dataset.online = String(up);
        // an error said while the server was away (a click's "Failed to fetch") is stale now
        if (up) notice("");
        draw();
        if (up && game && timed(game.clocks) && !kind.finished(game)) void sync();
      },
    });
  };
  follow();
  return () => {
    closed = true;
    next?.close();
    clearInterval(ticker);
    watch?.close();
    chat.close();
  };
}

// The replay page: a finished game move by move, numbered as its move list numbers them
// (position 0 is the start, position k the game after its k-th move and whatever followed it
// before the next: a bot's reply is a move of its own, a deal or the end is not); a slider,
// step buttons, the list of moves to jump to, and the export.
export function replayPage<G extends GameLike>(root: HTMLElement, kind: GameKind<G>, gameId: string, playerId: string, invite = ""): () => void {
  const frames: Frame<G>[] = [];
  const moves: { frame: number; move: Move }[] = []; // each move and its event's frame
  // the frame shown at position k: the last one before move k + 1 (the end: the last frame)
  const frameAt = (k: number) => Math.max(0, (k < moves.length ? moves[k].frame : frames.length) - 1);
  const slider = h("input", { type: "range", min: 0, max: 0, value: 0, id: "replay-slider", "aria-label": "move" }) as HTMLInputElement;
  const counter = h("span", { id: "replay-counter" });
  const boardEl = h("div", { class: "board-area" });
  const statusEl = h("p", { class: "status", id: "status" });
  const noteEl = h("p", { class: "notation", id: "replay-notation", "aria-live": "polite" });
  const seatsEl = h("div");
  const listEl = h("ol", { class: "log", id: "replay-moves", "aria-label": "Moves" });
  const view: View = { seat: undefined, live: false, online: true, act: async () => false, rerender: () => show() };
  const to = (k: number) => {
    slider.value = String(Math.min(Math.max(k, 0), moves.length));
    show();
  };
  const step = (d: number) => () => to(Number(slider.value) + d);
  const exportButton = h("button", { id: "export", onclick: () => void download() }, "Export");
  // the step buttons' marks are drawn by the page's own style (no font need have them)
  const stepButton = (id: string, label: string, mark: string, onclick: () => void) =>
    h("button", { id, "aria-label": label, title: label, class: `step ${mark}`, onclick }, h("span", { class: "mark", "aria-hidden": "true" }));
  replace(
    root,
    h("h2", { id: "game-title" }, `Replay: ${kind.label}`),
    seatsEl,
    h(
      "div",
      { class: "replay-controls" },
      stepButton("replay-first", "first", "first", () => to(0)),
      stepButton("replay-prev", "previous", "prev", step(-1)),
      slider,
      stepButton("replay-next", "next", "next", step(1)),
      stepButton("replay-last", "last", "last", () => to(moves.length)),
      counter,
      exportButton,
    ),
    noteEl,
    statusEl,
    boardEl,
    h("details", { open: true }, h("summary", {}, "Moves"), listEl),
    rulesPanel(kind.type, kind.label),
  );
  slider.addEventListener("input", () => show());

  function show(): void {
    const k = Number(slider.value);
    const i = frameAt(k);
    const frame = frames[i];
    if (!frame?.game) return;
    const game = frame.game;
    view.seat = seatOf(kind.seats(game), playerId);
    // the last move up to here, marked on the board
    view.last = k > 0 ? frames[moves[k - 1].frame].event : undefined;
    root.dataset.version = String(game.version);
    root.dataset.position = String(k);
    counter.textContent = `move ${k} of ${moves.length}`;
    const line = k > 0 ? moveLine(kind.seats(game), moves[k - 1].move) : "the start";
    noteEl.textContent = line;
    slider.setAttribute("aria-valuetext", `move ${k} of ${moves.length}: ${line}`);
    replace(seatsEl, seatsLine(kind.seats(game), view.seat, game.clocks));
    void lookUp(kind.seats(game).map((s) => s.playerId)).then((found) => found && show());
    paintClocks(seatsEl, game.clocks, 0, false); // as they stood after this move: nothing runs
    statusEl.textContent = kind.status(game, view);
    const focused = focusKey();
    replace(boardEl, kind.board(game, view));
    replace(
      listEl,
      moves.map((m, j) =>
        h(
          "li",
          { class: m.move.seat !== undefined ? `seat-${m.move.seat}` : "", "aria-current": j + 1 === k ? "step" : undefined },
          h("button", { class: "link", "data-position": j + 1, onclick: () => to(j + 1) }, moveLine(kind.seats(game), m.move)),
        ),
      ),
    );
    restoreFocus(focused);
    const title = `Replay: ${kind.label}: ${playersTitle(kind.seats(game))}`;
    if (root.querySelector("#game-title")!.textContent !== title) root.querySelector("#game-title")!.textContent = title;
  }

  async function download(): Promise<void> {
    try {
      const text = kind.exportText
        ? await kind.exportText(gameId, invite)
        : frames.map((f) => JSON.stringify({ version: String(f.event?.info?.version ?? ""), type: f.event?.info?.type, notation: f.event?.notation })).join("\n") + "\n";
      const blob = new Blob([text], { type: "text/plain" });
      const a = h("a", { href: URL.createObjectURL(blob), download: `${kind.type}-${gameId}.${kind.exportText ? "txt" : "jsonl"}` });
      document.body.append(a);
      a.click();
      a.remove();
    } catch (e) {
      notice(describe(e), "error");
    }
  }

  const replay = stream(kind.service, "replayGame", { gameId, paceMs: 0, invite }, {
    message(item) {
      const frame = item as unknown as Frame<G>;
      frames.push(frame);
      const move = frame.game ? moveOf(kind, frame.event, frame.game) : undefined;
      if (move) moves.push({ frame: frames.length - 1, move });
      slider.max = String(moves.length);
      if (frames.length === 1) show();
      counter.textContent = `move ${Number(slider.value)} of ${moves.length}`;
    },
    error(e) {
      notice(describe(e), "error");
    },
    end() {
      root.dataset.loaded = "true";
      to(moves.length);
    },
  });
  return () => replay.close();
}

export async function createAgainstBots<G extends GameLike>(
  kind: GameKind<G>,
  me: SeatLike,
  bots: string[],
  config: Record<string, unknown> = {},
  timeControl?: TimeControl, // none: the server's default for a game against bots, untimed
): Promise<string> {
  // bots of one level told apart by a number: "easy bot 1", "easy bot 2"
  const seats = [me, ...bots.map((b, i) => ({ index: i + 1, playerId: b, displayName: `${b.slice(4)} bot${bots.length > 1 ? ` ${i + 1}` : ""}` }))];
  const request = { seats, ...(Object.keys(config).length ? { config } : {}), ...(timeControl ? { timeControl } : {}), commandId: commandId() };
  const response = (await unary(kind.service, "createGame", request)) as unknown as { game?: GameLike };
  if (!response.game) throw new Error("no game in the answer");
  return response.game.gameId;
}
