// Upwords: the 10x10 board with each stack's height, your own rack only (the server sends
// nothing else), tiles placed by clicking a rack tile then a square (or typing the play in
// notation), and play, pass, exchange, challenge, accept; scores and the bag.
//
// The board is an ARIA grid in the rules' coordinates (rows 1-10 top to bottom, columns A-J:
// "5E"), each square saying its stack; the last play is marked. On the keyboard, as on
// Woogles: move to a square with the arrow keys and type the letters of a word (each takes a
// rack tile and steps on across or down: Space turns the direction), Backspace takes the last
// one back, Enter plays, Escape clears.
//
// Challenge and Accept name the pending play on the screen (`play`): one that arrives after
// another play (or none) is pending is refused PLAY_CHANGED and nothing is done; the page then
// fetches the game and draws it as it is (`stale`, the same as Take Four's ROUND_CHANGED), so
// the player sees the play pending now and can answer that one.
import { unary } from "./api";
import { h } from "./dom";
import { announce, grid, setCursor, toolbar, type GridCell } from "./a11y";
import { canAct, commandId, eventSeat, seatName, type GameKind, type View } from "./play";
import { Status, UpwordsService, type Game } from "@parlor/client/gen/parlor/upwords/v1/upwords_pb";
import { nameOf } from "./names";

const SIZE = 10;
const COLUMNS = "ABCDEFGHIJ";

interface Placed {
  row: number;
  col: number;
  tile: string;
  rackIndex: number;
}

// The play being put together on this page (nothing is sent until Play).
const draft = { gameId: "", version: -1n, placed: [] as Placed[], chosen: -1, down: false };

// A square's name in the rules' notation: row 1-10 then column A-J ("5E").
export function squareName(row: number, col: number): string {
  return `${row + 1}${COLUMNS[col]}`;
}

// The rack tile a typed key stands for: the first unused one of that letter (Q is the Qu tile).
export function rackIndexFor(rack: string[], used: Set<number>, key: string): number {
  const letter = key.toUpperCase();
  return rack.findIndex((t, i) => !used.has(i) && (t.toUpperCase() === letter || (letter === "Q" && t.toUpperCase() === "QU")));
}

// What a Challenge or an AcceptPlay sends: the play it means, the one on the screen
// (PendingPlay.number). If another play is pending by the time it arrives (with three or four
// players the next one may have played first), the server refuses it (PLAY_CHANGED) and
// nothing happens; the page then fetches the game and shows it as it is (`upwords.stale`).
export function answerRequest(game: Game, commandId: string): { gameId: string; play: number; commandId: string } {
  return { gameId: game.gameId, play: game.pending?.number ?? 0, commandId };
}

function reset(game: Game): void {
  draft.gameId = game.gameId;
  draft.placed = [];
  draft.chosen = -1;
}

// The squares the last play covered (a play, or one pending a challenge).
function lastSquares(view: View): Set<string> {
  const value = view.last?.body?.value as { placements?: { row: number; col: number }[] } | undefined;
  return new Set((view.last?.body?.case === "wordPlayed" ? value?.placements ?? [] : []).map((p) => `${p.row},${p.col}`));
}

function square(game: Game, row: number, col: number, last: Set<string>): GridCell {
  const stack = game.board[row * SIZE + col]?.tiles ?? [];
  const placed = draft.placed.find((p) => p.row === row && p.col === col);
  const top = placed ? placed.tile : stack[stack.length - 1] ?? "";
  const height = stack.length + (placed ? 1 : 0);
  const centre = (row === 4 || row === 5) && (col === 4 || col === 5);
  const isLast = last.has(`${row},${col}`);
  const classes = ["uw-sq", height > 1 ? `h${Math.min(height, 5)}` : "", centre ? "centre" : "", placed ? "placed" : "", isLast ? "last" : "", top.length > 1 ? "wide" : ""];
  const what = placed
    ? `${placed.tile} placed (not yet played) on ${stack.length ? `a stack of ${stack.length}` : "an empty square"}`
    : stack.length
      ? `${top}, stack of ${stack.length}${stack.length > 1 ? ` (${stack.join(" ")} from the bottom)` : ""}`
      : "empty";
  const label = `${squareName(row, col)}: ${what}${centre ? ", centre" : ""}${isLast ? ", last play" : ""}`;
  return {
    key: `${row},${col}`,
    label,
    classes: classes.filter(Boolean),
    attrs: { "data-square": `${row},${col}`, "data-height": height, title: label },
    content: [top, height ? h("span", { class: "h" }, height) : null],
  };
}

function send(view: View, game: Game, run: () => Promise<{ game?: unknown }>): void {
  void view.act(run).then((ok) => {
    if (ok) reset(game);
    view.rerender();
  });
}

export const upwords: GameKind<Game> = {
  type: "upwords",
  label: "Upwords",
  service: UpwordsService,
  seats: (game) => game.seats,
  finished: (game) => game.status === Status.ENDED,
  stale: ["PLAY_CHANGED"],
  status(game, view) {
    if (game.status === Status.ENDED) {
      const names = game.winners.map((w) => (w === view.seat ? "you" : seatName(game.seats, w))).join(" and ");
      return `Game over (${game.endReason.replace(/_/g, " ").toLowerCase()}): ${names} won.`;
    }
    if (game.pending && game.pending.seat !== view.seat && view.seat !== undefined && view.live)
      return `${seatName(game.seats, game.pending.seat)} played ${game.pending.words.join(", ")}: challenge or accept.`;
    if (view.seat === game.toMove && view.live)
      return game.retry ? "Your play was withdrawn: play again or pass." : "Your turn: pick a tile, then a square (or type a word on the board).";
    return `${seatName(game.seats, game.toMove)} to move.`;
  },
  board(game, view) {
    if (draft.gameId !== game.gameId || game.version !== draft.version) {
      if (draft.gameId !== game.gameId || game.toMove !== view.seat) reset(game);
      draft.version = game.version;
    }
    const myTurn = canAct(view) && game.status === Status.IN_PROGRESS && view.seat === game.toMove;
    const last = lastSquares(view);
    const rows: GridCell[][] = [];
    for (let r = 0; r < SIZE; r++) {
      const row = [];
      for (let c = 0; c < SIZE; c++) row.push(square(game, r, c, last));
      rows.push(row);
    }
    const used = new Set(draft.placed.map((p) => p.rackIndex));
    const gameId = game.gameId;
    const play = () => {
      const move = (document.getElementById("uw-notation") as HTMLInputElement | null)?.value.trim() ?? "";
      const placements = move ? [] : draft.placed.map(({ row, col, tile }) => ({ row, col, tile }));
      send(view, game, () => unary(UpwordsService, "play", { gameId, placements, move, commandId: commandId() }));
    };
    // A rack tile onto a square (the chosen one, or the one a typed letter named), or the
    // placed tile there taken back.
    const put = (row: number, col: number, index: number) => {
      const placed = draft.placed.find((p) => p.row === row && p.col === col);
      if (placed) draft.placed = draft.placed.filter((p) => p !== placed);
      if (index >= 0) draft.placed.push({ row, col, tile: game.rack[index], rackIndex: index });
      draft.chosen = -1;
    };
    const board = grid({
      name: "uw-board",
      id: "uw-board",
      label: "Board: rows 1 to 10, columns A to J",
      columnLabels: [...COLUMNS],
      rowLabels: rows.map((_, i) => String(i + 1)),
      rows,
      classes: `uw-board${draft.down ? " down" : " across"}`,
      activate: (_cell, r, c) => {
        if (!myTurn) return;
        const placed = draft.placed.some((p) => p.row === r && p.col === c);
        if (!placed && draft.chosen < 0) return;
        put(r, c, placed ? -1 : draft.chosen);
        view.rerender();
      },
      key: (e, _cell, r, c) => {
        if (e.ctrlKey || e.metaKey || e.altKey) return false;
        if (e.key === " ") {
          draft.down = !draft.down;
          announce(draft.down ? "typing down" : "typing across");
          view.rerender();
          return true;
        }
        if (!myTurn) return false;
        if (e.key === "Enter") {
          if (draft.chosen >= 0 || draft.placed.some((p) => p.row === r && p.col === c)) return false; // activate
          if (draft.placed.length) play();
          return true;
        }
        if (e.key === "Escape") {
          reset(game);
          view.rerender();
          return true;
        }
        if (e.key === "Backspace" || e.key === "Delete") {
          const here = draft.placed.find((p) => p.row === r && p.col === c);
          const gone = e.key === "Delete" ? here : draft.placed[draft.placed.length - 1];
          if (!gone) return true;
          draft.placed = draft.placed.filter((p) => p !== gone);
          setCursor("uw-board", `${gone.row},${gone.col}`);
          announce(`${gone.tile} taken back from ${squareName(gone.row, gone.col)}`);
          view.rerender();
          return true;
        }
        if (!/^[a-zA-Z]$/.test(e.key)) return false;
        const index = rackIndexFor(game.rack, used, e.key);
        if (index < 0) {
          announce(`No ${e.key.toUpperCase()} on your rack`);
          return true;
        }
        put(r, c, index);
        announce(`${game.rack[index]} on ${squareName(r, c)}`);
        const [nr, nc] = draft.down ? [r + 1, c] : [r, c + 1];
        if (nr < SIZE && nc < SIZE) setCursor("uw-board", `${nr},${nc}`);
        view.rerender();
        return true;
      },
    });
    const rack = game.rack.map((tile, i) =>
      h(
        "button",
        {
          class: `tile${draft.chosen === i ? " chosen" : ""}${used.has(i) ? " used" : ""}${tile.length > 1 ? " wide" : ""}`,
          "data-tile": tile,
          "data-rack-index": i,
          "data-key": String(i),
          "aria-pressed": draft.chosen === i ? "true" : "false",
          "aria-label": `${tile}${used.has(i) ? ", placed" : ""}`,
          disabled: used.has(i) || !canAct(view),
          onclick: () => {
            draft.chosen = draft.chosen === i ? -1 : i;
            view.rerender();
          },
        },
        tile,
      ) as HTMLButtonElement,
    );
    const notation = h("input", { id: "uw-notation", placeholder: "or type a play: 5E WORD", size: 18, "aria-label": "a play in notation, such as 5E WORD" }) as HTMLInputElement;
    const canChallenge = canAct(view) && game.pending !== undefined && view.seat !== undefined && game.pending.seat !== view.seat;
    const seat = view.seat;
    const actions =
      view.live && seat !== undefined && game.status === Status.IN_PROGRESS
        ? h(
            "div",
            { class: "actions" },
            h(
              "button",
              {
                id: "uw-play",
                disabled: !myTurn,
                onclick: play,
              },
              "Play",
            ),
            h("button", { id: "uw-clear", onclick: () => { reset(game); view.rerender(); } }, "Clear"),
            h("button", { id: "uw-pass", disabled: !myTurn, onclick: () => send(view, game, () => unary(UpwordsService, "pass", { gameId, commandId: commandId() })) }, "Pass"),
            h(
              "button",
              {
                id: "uw-exchange",
                disabled: !myTurn || draft.chosen < 0,
                title: "pick the rack tile to give back first: you draw another from the bag and your turn ends",
                onclick: () => {
                  const tile = game.rack[draft.chosen];
                  send(view, game, () => unary(UpwordsService, "exchange", { gameId, tile, commandId: commandId() }));
                },
              },
              "Exchange",
            ),
            h("button", { id: "uw-challenge", title: "challenge the pending play: if a word is not in the dictionary it is withdrawn, otherwise you lose your turn", disabled: !canChallenge, onclick: () => send(view, game, () => unary(UpwordsService, "challenge", answerRequest(game, commandId()))) }, "Challenge"),
            h("button", { id: "uw-accept", disabled: !canChallenge, onclick: () => send(view, game, () => unary(UpwordsService, "acceptPlay", answerRequest(game, commandId()))) }, "Accept"),
            h("button", { id: "uw-resign", disabled: !canAct(view), onclick: () => confirm("Resign this game?") && send(view, game, () => unary(UpwordsService, "resign", { gameId, commandId: commandId() })) }, "Resign"),
            notation,
          )
        : null;
    const scores = game.seats.map((s) =>
      h("li", { class: `seat-${s.index}` }, h("span", { class: "swatch" }), `${nameOf(s)}: ${game.scores[s.index] ?? 0} points, ${game.rackSizes[s.index] ?? 0} tiles`),
    );
    return h(
      "div",
      { class: "uw", "data-turn": myTurn ? "mine" : "theirs" },
      h("div", { class: "board-scroll" }, board),
      view.seat !== undefined && game.rack.length ? toolbar("uw-rack", "Your rack", rack, { class: "rack", id: "rack" }) : null,
      actions,
      h("ul", { class: "scores" }, scores, h("li", { id: "bag" }, `Bag: ${game.bagCount} tiles`), h("li", { id: "unseen" }, `Unseen tiles (the bag and the other racks): ${game.bagCount + game.rackSizes.reduce((a, n, i) => a + (i === view.seat ? 0 : n), 0)}`)),
    );
  },
  keys: [
    ["Tab", "to the board, the rack, then the buttons"],
    ["← → ↑ ↓", "move across the board (or along the rack)"],
    ["A to Z", "put that rack tile on the square and step on (Q is the Qu tile)"],
    ["Space", "type across or down"],
    ["Backspace", "take back the last tile placed (Delete: the one on the square)"],
    ["Enter", "on the rack: pick a tile; on a square: put the picked tile there, or play"],
    ["Escape", "clear the tiles placed"],
  ],
  move(event) {
    const value = event.body?.value as { score?: number } | undefined;
    switch (event.body?.case) {
      case "wordPlayed":
        return { seat: eventSeat(event), text: `${event.notation} ${value?.score ?? 0}` };
      case "passed":
        return { seat: eventSeat(event), text: "passed" };
      case "tileExchanged":
        return { seat: eventSeat(event), text: `exchanged a tile` };
      case "playWithdrawn":
        return { seat: eventSeat(event), text: "play withdrawn after a challenge" };
      case "challengeFailed":
        return { seat: (value as { challenger?: number } | undefined)?.challenger, text: "challenged, and the play stands" };
      case "playerResigned":
        return { seat: eventSeat(event), text: "resigned" };
      default:
        return undefined;
    }
  },
  async exportText(gameId, invite = "") {
    return (await unary(UpwordsService, "exportGame", { gameId, invite })).text;
  },
};
