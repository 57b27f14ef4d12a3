// Take Four: everyone at once. Your grid and hand (nobody else's: the server sends only
// counts), jokers with the letter they stand for; pick a hand tile and click a cell to place
// it, pick a grid tile and click another cell to move it (or take it back), pick a letter
// from your hand and click a joker to swap it. Take Four, Done, the stalemate agreement,
// everyone's progress and the round scores.
//
// Every command names the round on the screen (`round`): one that arrives after the round
// ended (another player called Take Four or Done first) is refused ROUND_CHANGED and nothing
// is done; the page then fetches the game and draws the round as it is (`stale`), and what
// was picked on the old round's grid or hand is let go.
import { unary } from "./api";
import { h } from "./dom";
import { commandId, type GameKind, type SeatLike, type View } from "./play";
import { Phase, TakeFourService, type Game, type GridTile } from "@parlor/client/gen/parlor/takefour/v1/takefour_pb";
import { nameOf } from "./names";

type Chosen = { kind: "hand"; tile: number; face: string } | { kind: "grid"; x: number; y: number } | null;
let chosen: Chosen = null;
let chosenGame = "";
let chosenRound = 0;

// The commands the web client sends that name the round (every Take Four command but Leave:
// a player may leave in any round, so the page sends Leave without one).
export const ROUND_COMMANDS = [
  "placeTile",
  "moveTile",
  "takeBackTile",
  "swapJoker",
  "callTakeFour",
  "callDone",
  "agreeToDeal",
  "withdrawAgreement",
] as const;

// A command's request: its own fields, the game, the round on the screen, a new command id.
export function roundRequest<F extends object>(game: Game, fields: F, commandId: string): F & { gameId: string; round: number; commandId: string } {
  return { ...fields, gameId: game.gameId, round: game.round, commandId };
}

const seatsOf = (game: Game): SeatLike[] =>
  game.seats.map((s, i) => ({ index: s.seat?.index ?? i, playerId: s.seat?.playerId ?? "", displayName: s.seat?.displayName ?? "" }));

function letterFor(face: string): string | undefined {
  if (face !== "?") return "";
  const input = document.getElementById("tf-letter") as HTMLInputElement | null;
  const letter = (input?.value ?? "").trim().toUpperCase();
  return letter || undefined;
}

function grid(game: Game, view: View, tiles: GridTile[], mine: boolean): HTMLElement {
  const xs = [0, ...tiles.map((t) => t.x)];
  const ys = [0, ...tiles.map((t) => t.y)];
  const pad = mine ? 2 : 0;
  const [x0, x1] = [Math.min(...xs) - pad, Math.max(...xs) + pad];
  const [y0, y1] = [Math.min(...ys) - pad, Math.max(Math.max(...ys) + pad, Math.min(...ys) - pad + (mine ? 6 : 0))];
  const width = Math.max(x1 - x0 + 1, mine ? 7 : 1);
  const at = new Map(tiles.map((t) => [`${t.x},${t.y}`, t]));
  const playing = view.live && mine && game.phase === Phase.PLAYING;
  const cells = [];
  for (let y = y0; y <= y1; y++)
    for (let x = x0; x < x0 + width; x++) {
      const tile = at.get(`${x},${y}`);
      const isChosen = chosen?.kind === "grid" && chosen.x === x && chosen.y === y;
      cells.push(
        h(
          "button",
          {
            class: `tf-sq${tile ? " filled" : ""}${tile?.joker ? " joker" : ""}${isChosen ? " chosen" : ""}`,
            "data-cell": `${x},${y}`,
            disabled: !playing,
            title: tile?.joker ? `joker as ${tile.letter}` : `${x},${y}`,
            onclick: () => {
              const c = chosen;
              if (tile && c?.kind === "hand" && tile.joker && c.face !== "?") {
                chosen = null;
                void view.act(() => unary(TakeFourService, "swapJoker", roundRequest(game, { tile: c.tile, cell: { x, y } }, commandId())));
              } else if (tile) {
                chosen = isChosen ? null : { kind: "grid", x, y };
                view.rerender();
              } else if (c?.kind === "hand") {
                const letter = letterFor(c.face);
                if (letter === undefined) return void document.getElementById("tf-letter")?.focus();
                chosen = null;
                void view.act(() => unary(TakeFourService, "placeTile", roundRequest(game, { tile: c.tile, x, y, letter }, commandId())));
              } else if (c?.kind === "grid") {
                chosen = null;
                void view.act(() => unary(TakeFourService, "moveTile", roundRequest(game, { from: { x: c.x, y: c.y }, to: { x, y } }, commandId())));
              }
            },
          },
          tile ? tile.letter : "",
        ),
      );
    }
  const el = h("div", { class: "tf-grid", id: mine ? "tf-grid" : undefined }, cells);
  el.style.gridTemplateColumns = `repeat(${width}, 34px)`; // set through the CSSOM: the CSP allows no inline style
  return el;
}

const PHASES: Record<number, string> = {
  [Phase.BETWEEN_ROUNDS]: "between rounds",
  [Phase.PLAYING]: "playing",
  [Phase.OVER]: "over",
};

export const takefour: GameKind<Game> = {
  type: "takefour",
  label: "Take Four",
  service: TakeFourService,
  seats: seatsOf,
  finished: (game) => game.phase === Phase.OVER,
  stale: ["ROUND_CHANGED"],
  status(game, view) {
    if (game.phase === Phase.OVER) {
      const seats = seatsOf(game);
      const names = game.winners.map((w) => (w === view.seat ? "you" : (seats[w] ? nameOf(seats[w]) : `seat ${w}`))).join(" and ");
      return `Game over after round ${game.round}: ${names} won (lowest total).`;
    }
    const mine = view.seat !== undefined ? game.seats[view.seat] : undefined;
    const bag = game.bagCount === 0 ? "the bag is empty: finish and call Done" : `${game.bagCount} tiles in the bag`;
    if (mine && view.live && game.phase === Phase.PLAYING)
      return mine.inHand === 0 ? `Round ${game.round}: your hand is empty, call Take Four (${bag}).` : `Round ${game.round}: build your crossword (${bag}).`;
    return `Round ${game.round}, ${PHASES[game.phase] ?? ""}; ${bag}.`;
  },
  board(game, view) {
    if (chosenGame !== game.gameId || chosenRound !== game.round) {
      chosen = null; // a tile of another game, or of a round that is over
      chosenGame = game.gameId;
      chosenRound = game.round;
    }
    const me = view.seat !== undefined ? game.seats[view.seat] : undefined;
    const playing = view.live && me !== undefined && game.phase === Phase.PLAYING;
    const hand = (me?.visible ? me.hand : []).map((t) =>
      h(
        "button",
        {
          class: `tile${chosen?.kind === "hand" && chosen.tile === t.id ? " chosen" : ""}`,
          "data-tile": t.face,
          "data-tile-id": t.id,
          disabled: !playing,
          onclick: () => {
            chosen = chosen?.kind === "hand" && chosen.tile === t.id ? null : { kind: "hand", tile: t.id, face: t.face };
            view.rerender();
          },
        },
        t.face === "?" ? "★" : t.face,
      ),
    );
    const act = (name: "callTakeFour" | "callDone" | "agreeToDeal" | "withdrawAgreement") => () =>
      void view.act(() => unary(TakeFourService, name, roundRequest(game, {}, commandId())));
    const c = chosen;
    const actions = playing
      ? h(
          "div",
          { class: "actions" },
          h("button", { id: "tf-takefour", onclick: act("callTakeFour") }, "Take Four!"),
          h("button", { id: "tf-done", onclick: act("callDone") }, "Done"),
          me!.agreesToDeal
            ? h("button", { id: "tf-withdraw", onclick: act("withdrawAgreement") }, "Withdraw agreement")
            : h("button", { id: "tf-agree", onclick: act("agreeToDeal"), title: "stalemate: deal four more when everyone agrees" }, "Agree to deal"),
          h(
            "button",
            {
              id: "tf-takeback",
              disabled: c?.kind !== "grid",
              onclick: () => {
                if (c?.kind !== "grid") return;
                chosen = null;
                void view.act(() => unary(TakeFourService, "takeBackTile", roundRequest(game, { cell: { x: c.x, y: c.y } }, commandId())));
              },
            },
            "Take back",
          ),
          h("label", {}, "Joker letter ", h("input", { id: "tf-letter", size: 2, maxlength: 1 })),
        )
      : null;
    // Leaving forfeits the seat (the others play on; one seat left wins): a game against
    // bots, or one a player gives up, ends this way, as the other games' Resign.
    const leave =
      view.live && me !== undefined && !me.forfeited && game.phase !== Phase.OVER
        ? h(
            "button",
            {
              id: "tf-leave",
              onclick: () =>
                confirm("Leave this game? Your seat forfeits and the others play on.") &&
                void view.act(() => unary(TakeFourService, "leave", { gameId: game.gameId, commandId: commandId() })),
            },
            "Leave",
          )
        : null;
    const progress = game.seats.map((s, i) =>
      h(
        "tr",
        { class: `seat-${i}` },
        h("td", {}, h("span", { class: "swatch" }), (s.seat ? nameOf(s.seat) : `seat ${i}`)),
        h("td", {}, s.inHand),
        h("td", {}, s.onGrid),
        h("td", {}, s.calls),
        h("td", {}, s.agreesToDeal ? "yes" : ""),
        h("td", {}, s.total),
      ),
    );
    const rounds = game.results.map((r) => h("tr", {}, h("td", {}, r.round), ...r.scores.map((x) => h("td", {}, x))));
    const others = game.seats
      .map((s, i) => ({ s, i }))
      .filter(({ s, i }) => i !== view.seat && s.visible)
      .map(({ s }) => h("div", { class: "tf-other" }, h("h4", {}, s.seat ? nameOf(s.seat) : ""), grid(game, view, s.grid, false)));
    return h(
      "div",
      { class: "tf", "data-phase": PHASES[game.phase] ?? "" },
      me?.visible ? h("div", {}, h("h3", {}, "Your crossword"), grid(game, view, me.grid, true)) : null,
      me?.visible ? h("div", { class: "rack", id: "tf-hand" }, hand) : null,
      actions,
      leave,
      h(
        "table",
        { class: "progress", id: "tf-progress" },
        h("tr", {}, ...["player", "in hand", "on grid", "calls", "agrees to deal", "total"].map((t) => h("th", {}, t))),
        progress,
      ),
      rounds.length
        ? h("table", { class: "rounds" }, h("tr", {}, h("th", {}, "round"), ...game.seats.map((s) => h("th", {}, s.seat ? nameOf(s.seat) : ""))), rounds)
        : null,
      others,
    );
  },
  async exportText(gameId, invite = "") {
    return (await unary(TakeFourService, "exportGame", { gameId, invite })).text;
  },
};
