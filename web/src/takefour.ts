// Take Four: everyone at once. Your grid and hand (nobody else's: the server sends only
// counts), jokers with the letter they stand for; pick a hand tile and click a cell to place
// it, pick a grid tile and click another cell to move it (or take it back), pick a letter
// from your hand and click a joker to swap it. Take Four, Done, the stalemate agreement,
// everyone's progress and the round scores.
//
// Each grid is an ARIA grid in the rules' coordinates (x grows to the right, y downwards: a
// cell is "x,y"); on the keyboard, arrow keys move across your grid, a letter puts the hand
// tile of that letter on the cell (Shift and a letter: a joker as that letter), Enter picks a
// grid tile up and puts it down elsewhere, Delete takes it back into the hand.
//
// Every command names the round on the screen (`round`): one that arrives after the round
// ended (another player called Take Four or Done first) is refused ROUND_CHANGED and nothing
// is done; the page then fetches the game and draws the round as it is (`stale`), and what
// was picked on the old round's grid or hand is let go.
import { unary } from "./api";
import { h } from "./dom";
import { announce, grid as ariaGrid, setCursor, toolbar, type GridCell } from "./a11y";
import { canAct, commandId, eventSeat, type GameKind, type SeatLike, type View } from "./play";
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

function grid(game: Game, view: View, tiles: GridTile[], mine: boolean, owner: string): HTMLElement {
  const xs = [0, ...tiles.map((t) => t.x)];
  const ys = [0, ...tiles.map((t) => t.y)];
  const pad = mine ? 2 : 0;
  const [x0, x1] = [Math.min(...xs) - pad, Math.max(...xs) + pad];
  const [y0, y1] = [Math.min(...ys) - pad, Math.max(Math.max(...ys) + pad, Math.min(...ys) - pad + (mine ? 6 : 0))];
  const width = Math.max(x1 - x0 + 1, mine ? 7 : 1);
  const at = new Map(tiles.map((t) => [`${t.x},${t.y}`, t]));
  const playing = canAct(view) && mine && game.phase === Phase.PLAYING;
  const hand = view.seat !== undefined ? game.seats[view.seat]?.hand ?? [] : [];
  const place = (x: number, y: number, tile: number, letter: string) => {
    chosen = null;
    void view.act(() => unary(TakeFourService, "placeTile", roundRequest(game, { tile, x, y, letter }, commandId())));
  };
  // A click, or Enter on the cell: what the picked tile (if any) does there.
  const activate = (x: number, y: number) => {
    if (!playing) return;
    const tile = at.get(`${x},${y}`);
    const c = chosen;
    const isChosen = c?.kind === "grid" && c.x === x && c.y === y;
    if (tile && c?.kind === "hand" && tile.joker && c.face !== "?") {
      chosen = null;
      void view.act(() => unary(TakeFourService, "swapJoker", roundRequest(game, { tile: c.tile, cell: { x, y } }, commandId())));
    } else if (tile) {
      chosen = isChosen ? null : { kind: "grid", x, y };
      view.rerender();
    } else if (c?.kind === "hand") {
      const letter = letterFor(c.face);
      if (letter === undefined) return void document.getElementById("tf-letter")?.focus();
      place(x, y, c.tile, letter);
    } else if (c?.kind === "grid") {
      chosen = null;
      void view.act(() => unary(TakeFourService, "moveTile", roundRequest(game, { from: { x: c.x, y: c.y }, to: { x, y } }, commandId())));
    }
  };
  const rows: GridCell[][] = [];
  const columns: number[] = [];
  for (let x = x0; x < x0 + width; x++) columns.push(x);
  for (let y = y0; y <= y1; y++) {
    const row: GridCell[] = [];
    for (const x of columns) {
      const tile = at.get(`${x},${y}`);
      const isChosen = chosen?.kind === "grid" && chosen.x === x && chosen.y === y;
      const what = tile ? (tile.joker ? `joker as ${tile.letter}` : tile.letter) : "empty";
      row.push({
        key: `${x},${y}`,
        label: `${x},${y}: ${what}${isChosen ? ", picked up" : ""}`,
        classes: ["tf-sq", tile ? "filled" : "", tile?.joker ? "joker" : "", isChosen ? "chosen" : ""].filter(Boolean),
        attrs: { "data-cell": `${x},${y}`, title: tile?.joker ? `joker as ${tile.letter}` : `${x},${y}` },
        content: [tile ? tile.letter : ""],
      });
    }
    rows.push(row);
  }
  const name = mine ? "tf-mine" : `tf-${owner}`;
  return ariaGrid({
    name,
    id: mine ? "tf-grid" : undefined,
    label: mine ? "Your crossword: cells x,y (x to the right, y down)" : `${owner}'s crossword`,
    columnLabels: columns.map(String),
    rowLabels: rows.map((_, i) => String(y0 + i)),
    rows,
    classes: "tf-grid",
    activate: (cell) => {
      const [x, y] = cell.key.split(",").map(Number);
      activate(x, y);
    },
    key: (e, cell) => {
      if (!playing || e.ctrlKey || e.metaKey || e.altKey) return false;
      const [x, y] = cell.key.split(",").map(Number);
      const tile = at.get(cell.key);
      if ((e.key === "Delete" || e.key === "Backspace") && tile) {
        chosen = null;
        void view.act(() => unary(TakeFourService, "takeBackTile", roundRequest(game, { cell: { x, y } }, commandId())));
        return true;
      }
      if (!/^[a-zA-Z]$/.test(e.key) || tile) return false;
      const letter = e.key.toUpperCase();
      const own = e.shiftKey ? hand.find((t) => t.face === "?") : hand.find((t) => t.face.toUpperCase() === letter);
      if (!own) {
        announce(e.shiftKey ? "No joker in your hand" : `No ${letter} in your hand`);
        return true;
      }
      setCursor(name, `${x + 1},${y}`);
      place(x, y, own.id, own.face === "?" ? letter : "");
      return true;
    },
  });
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
  simultaneous: true,
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
    const playing = canAct(view) && me !== undefined && game.phase === Phase.PLAYING;
    const hand = (me?.visible ? me.hand : []).map((t) =>
      h(
        "button",
        {
          class: `tile${chosen?.kind === "hand" && chosen.tile === t.id ? " chosen" : ""}`,
          "data-tile": t.face,
          "data-tile-id": t.id,
          "data-key": String(t.id),
          "aria-pressed": chosen?.kind === "hand" && chosen.tile === t.id ? "true" : "false",
          "aria-label": t.face === "?" ? "joker" : t.face,
          disabled: !playing,
          onclick: () => {
            chosen = chosen?.kind === "hand" && chosen.tile === t.id ? null : { kind: "hand", tile: t.id, face: t.face };
            view.rerender();
          },
        },
        t.face === "?" ? "★" : t.face,
      ) as HTMLButtonElement,
    );
    const act = (name: "callTakeFour" | "callDone" | "agreeToDeal" | "withdrawAgreement") => () =>
      void view.act(() => unary(TakeFourService, name, roundRequest(game, {}, commandId())));
    const c = chosen;
    const actions = playing
      ? h(
          "div",
          { class: "actions" },
          h("button", { id: "tf-takefour", onclick: act("callTakeFour"), title: "your hand is empty and your grid one crossword: everyone is dealt four more tiles" }, "Take Four!"),
          h("button", { id: "tf-done", onclick: act("callDone"), title: "the bag is empty and your hand too: the round ends and is scored" }, "Done"),
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
          h("label", { title: "the letter a joker stands for, asked before it is placed" }, "Joker letter ", h("input", { id: "tf-letter", size: 2, maxlength: 1 })),
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
              disabled: !canAct(view),
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
      .map(({ s }) => h("div", { class: "tf-other" }, h("h4", {}, s.seat ? nameOf(s.seat) : ""), grid(game, view, s.grid, false, s.seat ? nameOf(s.seat) : "another player")));
    return h(
      "div",
      { class: "tf", "data-phase": PHASES[game.phase] ?? "" },
      me?.visible ? h("div", {}, h("h3", {}, "Your crossword"), h("div", { class: "board-scroll" }, grid(game, view, me.grid, true, ""))) : null,
      me?.visible ? toolbar("tf-hand", "Your hand", hand, { class: "rack", id: "tf-hand" }) : null,
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
  keys: [
    ["Tab", "to your crossword, your hand, then the buttons"],
    ["← → ↑ ↓", "move across your crossword (or along your hand)"],
    ["A to Z", "put the hand tile of that letter on the cell"],
    ["Shift + A to Z", "put a joker on the cell as that letter"],
    ["Enter", "pick a grid tile up, then Enter on another cell moves it there; on your hand: pick a tile to place"],
    ["Delete", "take the tile on the cell back into your hand"],
  ],
  move(event, game) {
    const seat = eventSeat(event);
    const secret = (event.body?.value as { secret?: { x?: number; y?: number; letter?: string; toX?: number; toY?: number } } | undefined)?.secret;
    const round = (event.body?.value as { round?: number } | undefined)?.round;
    switch (event.body?.case) {
      case "roundStarted":
        return { text: `round ${round} started` };
      case "tilePlaced":
        return { seat, text: secret ? `placed ${secret.letter || "a tile"} at ${secret.x},${secret.y}` : "placed a tile" };
      case "tileMoved":
        return { seat, text: secret ? `moved ${secret.letter} to ${secret.toX},${secret.toY}` : "moved a tile" };
      case "tileTakenBack":
        return { seat, text: secret ? `took back the tile at ${secret.x},${secret.y}` : "took a tile back" };
      case "jokerSwapped":
        return { seat, text: "swapped a joker" };
      case "takeFourCalled":
        return { seat, text: "called Take Four" };
      case "doneCalled":
        return { seat, text: "called Done" };
      case "dealAgreed":
        return { seat, text: "agreed to deal" };
      case "roundScored":
        return { text: `round ${round ?? game.round} scored` };
      case "seatForfeited":
        return { seat, text: "forfeited" };
      case "gameEnded":
        return { text: "game over" };
      default:
        return undefined;
    }
  },
  async exportText(gameId, invite = "") {
    return (await unary(TakeFourService, "exportGame", { gameId, invite })).text;
  },
};
