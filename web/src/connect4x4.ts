// Connect 4x4: both sides of the grid side by side (the back seen through the front, no
// mirroring), checkers, blockers and dead cells, the winning line marked on both sides.
// Click a column of a side to drop a checker there; "Blocker" mode drops a blocker.
import { unary } from "./api";
import { h } from "./dom";
import { commandId, seatName, type GameKind, type View } from "./play";
import { Connect4x4Service, Content, Status, type Game, type Hole } from "@parlor/client/gen/parlor/connect4x4/v1/connect4x4_pb";
import { nameOf } from "./names";

const COLUMNS = 7;
const ROWS = 6;
const LETTERS = "abcdefg";
let blockerMode = false;

function cell(game: Game, hole: Hole | undefined, column: number, row: number, side: "f" | "b"): HTMLElement {
  const content = hole?.content ?? Content.EMPTY;
  // The line is of front-view positions; it is drawn on the side(s) where the winner's piece is.
  const counts = content === Content.CHECKER || (content === Content.BLOCKER && game.config?.blockersCountTowardLines);
  const inLine =
    game.status === Status.WON && counts && hole?.seat === game.winner && game.line.some((p) => p.column === column && p.row === row);
  const classes = ["cell"];
  if (content === Content.CHECKER) classes.push("checker", `seat-${hole!.seat}`);
  if (content === Content.BLOCKER) classes.push("blocker", `seat-${hole!.seat}`);
  if (content === Content.DEAD) classes.push("dead");
  if (inLine) classes.push("line");
  return h("div", { class: classes.join(" "), "data-cell": `${LETTERS[column]}${row + 1}${side}`, title: `${LETTERS[column]}${row + 1}` });
}

function side(game: Game, view: View, which: "f" | "b"): HTMLElement {
  const holes = which === "f" ? game.front : game.back;
  const myTurn = view.live && game.status === Status.IN_PROGRESS && view.seat === game.turn;
  const columns = [];
  for (let c = 0; c < COLUMNS; c++) {
    const move = blockerMode ? `${LETTERS[c]}x` : `${LETTERS[c]}${which}`;
    const legal = myTurn && game.legalMoves.includes(move);
    const cells = [];
    for (let r = ROWS - 1; r >= 0; r--) cells.push(cell(game, holes[c * ROWS + r], c, r, which));
    columns.push(
      h(
        "button",
        {
          class: `column${legal ? " legal" : ""}`,
          "data-move": move,
          disabled: !legal,
          "aria-label": `drop ${blockerMode ? "a blocker" : "a checker"} in column ${LETTERS[c]}, ${which === "f" ? "front" : "back"}`,
          onclick: () =>
            void view.act(() =>
              unary(Connect4x4Service, "playMove", { gameId: game.gameId, move, commandId: commandId() }),
            ),
        },
        cells,
        h("span", { class: "label" }, LETTERS[c]),
      ),
    );
  }
  return h("div", { class: "c4-side" }, h("h3", {}, which === "f" ? "Front" : "Back"), h("div", { class: "c4-grid", "data-side": which }, columns));
}

export const connect4x4: GameKind<Game> = {
  type: "connect4x4",
  label: "Connect 4x4",
  service: Connect4x4Service,
  seats: (game) => game.seats,
  finished: (game) => game.status === Status.WON || game.status === Status.TIED,
  status(game, view) {
    if (game.status === Status.WON) {
      const who = game.winner === view.seat ? "You win" : `${seatName(game.seats, game.winner)} wins`;
      return `${who} (${game.endReason.replace(/_/g, " ").toLowerCase()}).`;
    }
    if (game.status === Status.TIED) return `A tie (${game.endReason.replace(/_/g, " ").toLowerCase()}).`;
    if (view.seat === game.turn && view.live) return "Your turn: click a column of either side.";
    return `${seatName(game.seats, game.turn)} to move.`;
  },
  board(game, view) {
    const mine = view.seat;
    const stock = game.seats.map((s) =>
      h("li", { class: `seat-${s.index}` }, h("span", { class: "swatch" }), `${nameOf(s)}: ${game.checkersLeft[s.index] ?? 0} checkers, ${game.blockersLeft[s.index] ?? 0} blockers`),
    );
    const canBlock = mine !== undefined && (game.blockersLeft[mine] ?? 0) > 0 && game.status === Status.IN_PROGRESS;
    return h(
      "div",
      { class: "c4", "data-turn": view.live && mine === game.turn && game.status === Status.IN_PROGRESS ? "mine" : "theirs" },
      h("div", { class: "c4-sides" }, side(game, view, "f"), side(game, view, "b")),
      view.live && mine !== undefined
        ? h(
            "label",
            { class: "blocker-mode" },
            h("input", {
              type: "checkbox",
              id: "blocker-mode",
              checked: blockerMode,
              disabled: !canBlock,
              onchange: (e: Event) => {
                blockerMode = (e.target as HTMLInputElement).checked;
                view.rerender();
              },
            }),
            " Drop a blocker (fills both sides of a column)",
          )
        : null,
      h("ul", { class: "stock" }, stock),
      view.live && mine !== undefined && game.status === Status.IN_PROGRESS
        ? h(
            "button",
            {
              id: "c4-resign",
              onclick: () =>
                confirm("Resign this game?") &&
                void view.act(() => unary(Connect4x4Service, "resign", { gameId: game.gameId, commandId: commandId() })),
            },
            "Resign",
          )
        : null,
    );
  },
};
