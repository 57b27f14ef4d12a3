// Connect 4x4: both sides of the grid side by side (the back seen through the front, no
// mirroring), checkers, blockers and dead cells, the winning line marked on both sides and
// described in words, the last move marked. Each side is an ARIA grid whose cells say their
// coordinates (the rules' own: columns a-g, rows 0 at the bottom to 5) and contents. Click a
// column's drop button or a cell to drop a checker there; on the keyboard, the arrow keys
// move across a side (and on to the other), Enter drops a checker, X a blocker.
import { unary } from "./api";
import { h } from "./dom";
import { grid, type GridCell } from "./a11y";
import { canAct, commandId, eventSeat, seatName, type GameKind, type View } from "./play";
import { Connect4x4Service, Content, Side, Status, type Game, type Hole } from "@parlor/client/gen/parlor/connect4x4/v1/connect4x4_pb";
import type { SeatLike } from "./play";
import { nameOf } from "./names";

const COLUMNS = 7;
const ROWS = 6;
const LETTERS = "abcdefg";
let blockerMode = false;
// The side shown on a narrow screen (a phone shows one side at a time, switched by two
// buttons or by the arrow keys past a side's edge); a wide one shows both.
let shown: "f" | "b" = "f";

type Which = "f" | "b";
const SIDE_NAME: Record<Which, string> = { f: "front", b: "back" };

// A cell's name in the rules' coordinates: "d0 front".
export function cellName(column: number, row: number, which: Which): string {
  return `${LETTERS[column]}${row} ${SIDE_NAME[which]}`;
}

// The winning line in words: "c0, d1, e2, f3".
export function lineWords(game: Game): string {
  return game.line.map((p) => `${LETTERS[p.column]}${p.row}`).join(", ");
}

function piece(seats: SeatLike[], content: Content, seat: number): string {
  const who = seatName(seats, seat);
  if (content === Content.CHECKER) return `${who}'s checker`;
  if (content === Content.BLOCKER) return `${who}'s blocker`;
  if (content === Content.DEAD) return "dead (left empty beneath a blocker)";
  return "empty";
}

// The cells the last move filled: a checker's one, a blocker's two (one per side).
function lastCells(view: View): Set<string> {
  const body = view.last?.body;
  const value = body?.value as { column?: number; row?: number; side?: Side } | undefined;
  if (!value || value.column === undefined || value.row === undefined) return new Set();
  if (body?.case === "checkerDropped") return new Set([`${value.column},${value.row},${value.side === Side.BACK ? "b" : "f"}`]);
  if (body?.case === "blockerDropped") return new Set(["f", "b"].map((s) => `${value.column},${value.row},${s}`));
  return new Set();
}

function cell(game: Game, hole: Hole | undefined, column: number, row: number, which: Which, last: Set<string>): GridCell {
  const content = hole?.content ?? Content.EMPTY;
  // The line is of front-view positions; it is drawn on the side(s) where the winner's piece is.
  const counts = content === Content.CHECKER || (content === Content.BLOCKER && game.config?.blockersCountTowardLines);
  const inLine =
    game.status === Status.WON && counts && hole?.seat === game.winner && game.line.some((p) => p.column === column && p.row === row);
  const isLast = last.has(`${column},${row},${which}`);
  const classes = ["cell"];
  if (content === Content.CHECKER) classes.push("checker", `seat-${hole!.seat}`);
  if (content === Content.BLOCKER) classes.push("blocker", `seat-${hole!.seat}`);
  if (content === Content.DEAD) classes.push("dead");
  if (inLine) classes.push("line");
  if (isLast) classes.push("last");
  const label = `${cellName(column, row, which)}: ${piece(game.seats, content, hole?.seat ?? 0)}${inLine ? ", in the winning line" : ""}${isLast ? ", last move" : ""}`;
  return {
    key: `${LETTERS[column]}${row}${which}`,
    label,
    classes,
    attrs: { "data-cell": `${LETTERS[column]}${row}${which}`, title: label },
  };
}

function drop(game: Game, view: View, move: string): void {
  void view.act(() => unary(Connect4x4Service, "playMove", { gameId: game.gameId, move, commandId: commandId() }));
}

function side(game: Game, view: View, which: Which, last: Set<string>): HTMLElement {
  const holes = which === "f" ? game.front : game.back;
  const myTurn = canAct(view) && game.status === Status.IN_PROGRESS && view.seat === game.turn;
  const legal = (move: string) => myTurn && game.legalMoves.includes(move);
  // The drop buttons above the columns: the pointer's (and touch's) way to play; the grid
  // below is the keyboard's, so these stay out of the tab order.
  const drops = [];
  for (let c = 0; c < COLUMNS; c++) {
    const move = blockerMode ? `${LETTERS[c]}x` : `${LETTERS[c]}${which}`;
    drops.push(
      h(
        "button",
        {
          class: `column${legal(move) ? " legal" : ""}`,
          "data-move": move,
          tabindex: -1,
          disabled: !legal(move),
          "aria-label": `drop ${blockerMode ? "a blocker" : "a checker"} in column ${LETTERS[c]}, ${SIDE_NAME[which]}`,
          onclick: () => drop(game, view, move),
        },
        "▼",
      ),
    );
  }
  const rows: GridCell[][] = [];
  for (let r = ROWS - 1; r >= 0; r--) {
    const cells = [];
    for (let c = 0; c < COLUMNS; c++) cells.push(cell(game, holes[c * ROWS + r], c, r, which, last));
    rows.push(cells);
  }
  const other: Which = which === "f" ? "b" : "f";
  const board = grid({
    name: `c4-${which}`,
    label: `${SIDE_NAME[which] === "front" ? "Front" : "Back"} side: columns a to g, rows 0 (bottom) to 5`,
    columnLabels: [...LETTERS],
    rowLabels: rows.map((_, i) => String(ROWS - 1 - i)),
    rows,
    classes: "c4-grid",
    activate: (_cell, _r, c) => {
      const move = blockerMode ? `${LETTERS[c]}x` : `${LETTERS[c]}${which}`;
      if (legal(move)) drop(game, view, move);
    },
    key: (e, _cell, _r, c) => {
      if (e.key !== "x" && e.key !== "X") return false;
      if (legal(`${LETTERS[c]}x`)) drop(game, view, `${LETTERS[c]}x`);
      return true;
    },
    beyond: (direction, r) => {
      if ((which === "f" && direction === "right") || (which === "b" && direction === "left")) {
        const el = document.querySelector<HTMLElement>(`[data-grid="c4-${other}"] .g-row:not(.g-head):nth-of-type(${r + 2}) [role=gridcell]:${direction === "right" ? "first" : "last"}-of-type`);
        if (el) {
          shown = other;
          el.closest<HTMLElement>(".c4")?.setAttribute("data-shown", other);
          el.closest("[role=grid]")?.querySelectorAll<HTMLElement>("[tabindex='0']").forEach((x) => (x.tabIndex = -1));
          el.tabIndex = 0;
          el.focus();
          return true;
        }
      }
      return false;
    },
  });
  board.dataset.side = which;
  return h(
    "section",
    { class: `c4-side c4-side-${which}`, "aria-label": SIDE_NAME[which] },
    h("h3", {}, which === "f" ? "Front" : "Back"),
    h("div", { class: "c4-drops", "data-side": which }, drops),
    board,
  );
}

export const connect4x4: GameKind<Game> = {
  type: "connect4x4",
  label: "Connect 4x4",
  service: Connect4x4Service,
  seats: (game) => game.seats,
  finished: (game) => game.status === Status.WON || game.status === Status.TIED,
  keys: [
    ["Tab", "to a side of the board (the front, then the back)"],
    ["← → ↑ ↓", "move across a side; past its edge, on to the other side"],
    ["Enter or Space", "drop a checker in the column (a blocker in blocker mode)"],
    ["X", "drop a blocker in the column"],
  ],
  move(event, game) {
    if (!event.notation) return undefined;
    const value = event.body?.value as { column?: number; row?: number; side?: Side } | undefined;
    const where =
      event.body?.case === "checkerDropped" && value
        ? ` (checker to ${cellName(value.column ?? 0, value.row ?? 0, value.side === Side.BACK ? "b" : "f")})`
        : event.body?.case === "blockerDropped" && value
          ? ` (blocker to ${LETTERS[value.column ?? 0]}${value.row ?? 0}, both sides)`
          : "";
    void game;
    return { seat: eventSeat(event), text: `${event.notation}${where}` };
  },
  status(game, view) {
    if (game.status === Status.WON) {
      const who = game.winner === view.seat ? "You win" : `${seatName(game.seats, game.winner)} wins`;
      // the winning line in words (the same cells are marked, and named so, on the board)
      if (game.line.length) return `${who}: four in a line at ${lineWords(game)}.`;
      return `${who} (${game.endReason.replace(/_/g, " ").toLowerCase()}).`;
    }
    if (game.status === Status.TIED) return `A tie (${game.endReason.replace(/_/g, " ").toLowerCase()}).`;
    if (view.seat === game.turn && view.live) return "Your turn: drop in a column of either side.";
    return `${seatName(game.seats, game.turn)} to move.`;
  },
  board(game, view) {
    const mine = view.seat;
    const stock = game.seats.map((s) =>
      h("li", { class: `seat-${s.index}` }, h("span", { class: "swatch" }), `${nameOf(s)}: ${game.checkersLeft[s.index] ?? 0} checkers, ${game.blockersLeft[s.index] ?? 0} blockers`),
    );
    const canBlock = canAct(view) && mine !== undefined && (game.blockersLeft[mine] ?? 0) > 0 && game.status === Status.IN_PROGRESS;
    const last = lastCells(view);
    return h(
      "div",
      { class: "c4", "data-turn": canAct(view) && mine === game.turn && game.status === Status.IN_PROGRESS ? "mine" : "theirs", "data-shown": shown },
      h(
        "div",
        { class: "c4-switch", role: "group", "aria-label": "side shown" },
        (["f", "b"] as const).map((w) =>
          h(
            "button",
            {
              id: `c4-show-${w}`,
              "aria-pressed": shown === w ? "true" : "false",
              onclick: () => {
                shown = w;
                view.rerender();
              },
            },
            w === "f" ? "Front" : "Back",
          ),
        ),
      ),
      h("div", { class: "c4-sides" }, side(game, view, "f", last), side(game, view, "b", last)),
      view.live && mine !== undefined
        ? h(
            "label",
            { class: "blocker-mode", title: "A blocker fills the same row of a column on both sides; the cells it leaves empty beneath it are dead" },
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
              disabled: !canAct(view),
              onclick: () =>
                confirm("Resign this game?") &&
                void view.act(() => unary(Connect4x4Service, "resign", { gameId: game.gameId, commandId: commandId() })),
            },
            "Resign",
          )
        : null,
    );
  },
  // its record in the game's notation, one move a line ("0 df"), the result last
  async exportText(gameId, invite = "") {
    return (await unary(Connect4x4Service, "exportGame", { gameId, invite })).text;
  },
};
