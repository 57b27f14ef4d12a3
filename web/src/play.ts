// What every game's page shares: follow a game live (WatchGame from the start, resumed after
// a dropped connection), take actions and show refusals, replay a finished game with a
// slider and step buttons, export it. Each game type supplies only how its game is drawn.
import type { GenService, GenServiceMethods } from "@parlor/client";
import { ApiError, stream, unary, type Stream } from "./api";
import { h, notice, replace } from "./dom";

// What the three games' messages have in common (the fields every Game and GameEvent has).
export interface SeatLike {
  index: number;
  playerId: string;
  displayName: string;
}
export interface GameLike {
  gameId: string;
  version: bigint;
}
export interface EventLike {
  notation: string;
  info?: { version: bigint; type: string };
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
  // The record of a finished game as text (a game's own notation), when its service has one.
  exportText?(gameId: string): Promise<string>;
}

export function seatOf(seats: SeatLike[], playerId: string): number | undefined {
  return seats.find((s) => s.playerId === playerId)?.index;
}

export function seatName(seats: SeatLike[], seat: number): string {
  const s = seats.find((x) => x.index === seat);
  return s ? s.displayName || s.playerId : `seat ${seat}`;
}

export function describe(error: unknown): string {
  if (error instanceof ApiError) return `${error.message}${error.reason ? ` (${error.reason})` : ""}`;
  return String(error);
}

function seatsLine(seats: SeatLike[], me: number | undefined): Node {
  return h(
    "ul",
    { class: "seats" },
    seats.map((s) =>
      h("li", { class: `seat seat-${s.index}${s.index === me ? " me" : ""}` }, h("span", { class: "swatch" }), s.displayName || s.playerId),
    ),
  );
}

function commandId(): string {
  return crypto.randomUUID();
}
export { commandId };

// The live page: the game as it happens, for a player or a spectator.
export function livePage<G extends GameLike>(root: HTMLElement, kind: GameKind<G>, gameId: string, playerId: string): () => void {
  let game: G | undefined;
  const log: string[] = [];
  const boardEl = h("div", { class: "board-area" });
  const statusEl = h("p", { class: "status", id: "status" });
  const seatsEl = h("div");
  const logEl = h("ol", { class: "log", id: "log" });
  const connEl = h("span", { class: "connection" });
  const links = h("p", { class: "links" });
  replace(
    root,
    h("h2", {}, `${kind.label} `, h("small", {}, gameId)),
    seatsEl,
    statusEl,
    boardEl,
    links,
    h("details", { open: true }, h("summary", {}, "Moves ", connEl), logEl),
  );

  const view: View = {
    seat: undefined,
    live: true,
    async act(run) {
      notice("");
      try {
        const response = await run();
        if (response.game) apply(response.game as G);
        return true;
      } catch (e) {
        notice(describe(e), "error");
        return false;
      }
    },
    rerender: () => draw(),
  };

  function apply(next: G): void {
    if (game && next.version < game.version) return; // an older picture arriving late
    game = next;
    draw();
  }

  function draw(): void {
    if (!game) return;
    view.seat = seatOf(kind.seats(game), playerId);
    root.dataset.version = String(game.version);
    root.dataset.finished = String(kind.finished(game));
    replace(seatsEl, seatsLine(kind.seats(game), view.seat));
    statusEl.textContent = kind.status(game, view);
    replace(boardEl, kind.board(game, view));
    replace(logEl, log.map((n) => h("li", {}, n)));
    if (kind.finished(game)) {
      replace(links, h("a", { href: `#/replay/${kind.type}/${gameId}`, id: "replay-link" }, "Replay this game"));
    } else if (view.seat === undefined) {
      replace(links, h("span", { class: "spectating" }, "You are watching."));
    } else {
      replace(links);
    }
  }

  // A matched game is created by its service a moment after the match: until it exists the
  // watch is refused GAME_NOT_FOUND, and is asked again.
  let watch: Stream | undefined;
  let waits = 0;
  let closed = false;
  const follow = (): void => {
    watch = stream(kind.service, "watchGame", { gameId, afterVersion: 0n }, {
      message(item) {
        const frame = item as unknown as Frame<G>;
        if (frame.event?.notation) log.push(frame.event.notation);
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
      },
    });
  };
  follow();
  return () => {
    closed = true;
    watch?.close();
  };
}

// The replay page: every event of a finished game with the game after it; a slider and steps.
export function replayPage<G extends GameLike>(root: HTMLElement, kind: GameKind<G>, gameId: string, playerId: string): () => void {
  const frames: Frame<G>[] = [];
  const slider = h("input", { type: "range", min: 0, max: 0, value: 0, id: "replay-slider" }) as HTMLInputElement;
  const counter = h("span", { id: "replay-counter" });
  const boardEl = h("div", { class: "board-area" });
  const statusEl = h("p", { class: "status", id: "status" });
  const noteEl = h("p", { class: "notation", id: "replay-notation" });
  const seatsEl = h("div");
  const view: View = { seat: undefined, live: false, act: async () => false, rerender: () => show() };
  const step = (d: number) => () => {
    slider.value = String(Math.min(Math.max(Number(slider.value) + d, 0), frames.length - 1));
    show();
  };
  const exportButton = h("button", { id: "export", onclick: () => void download() }, "Export");
  replace(
    root,
    h("h2", {}, `Replay: ${kind.label} `, h("small", {}, gameId)),
    seatsEl,
    h(
      "div",
      { class: "replay-controls" },
      h("button", { id: "replay-first", onclick: () => { slider.value = "0"; show(); } }, "⏮"),
      h("button", { id: "replay-prev", onclick: step(-1) }, "◀"),
      slider,
      h("button", { id: "replay-next", onclick: step(1) }, "▶"),
      h("button", { id: "replay-last", onclick: () => { slider.value = String(frames.length - 1); show(); } }, "⏭"),
      counter,
      exportButton,
    ),
    noteEl,
    statusEl,
    boardEl,
  );
  slider.addEventListener("input", () => show());

  function show(): void {
    const i = Number(slider.value);
    const frame = frames[i];
    if (!frame?.game) return;
    const game = frame.game;
    view.seat = seatOf(kind.seats(game), playerId);
    root.dataset.version = String(game.version);
    counter.textContent = `event ${i + 1} of ${frames.length}`;
    noteEl.textContent = frame.event ? `${frame.event.info?.type.split(".").pop() ?? ""} ${frame.event.notation}` : "";
    replace(seatsEl, seatsLine(kind.seats(game), view.seat));
    statusEl.textContent = kind.status(game, view);
    replace(boardEl, kind.board(game, view));
  }

  async function download(): Promise<void> {
    try {
      const text = kind.exportText
        ? await kind.exportText(gameId)
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

  const replay = stream(kind.service, "replayGame", { gameId, paceMs: 0 }, {
    message(item) {
      frames.push(item as unknown as Frame<G>);
      slider.max = String(frames.length - 1);
      if (frames.length === 1) show();
      counter.textContent = `event ${Number(slider.value) + 1} of ${frames.length}`;
    },
    error(e) {
      notice(describe(e), "error");
    },
    end() {
      root.dataset.loaded = "true";
      slider.value = String(frames.length - 1);
      show();
    },
  });
  return () => replay.close();
}

export async function createAgainstBots<G extends GameLike>(
  kind: GameKind<G>,
  me: SeatLike,
  bots: string[],
  config: Record<string, unknown> = {},
): Promise<string> {
  const seats = [me, ...bots.map((b, i) => ({ index: i + 1, playerId: b, displayName: `${b.slice(4)} bot` }))];
  const response = (await unary(kind.service, "createGame", { seats, ...(Object.keys(config).length ? { config } : {}), commandId: commandId() })) as unknown as { game?: GameLike };
  if (!response.game) throw new Error("no game in the answer");
  return response.game.gameId;
}
