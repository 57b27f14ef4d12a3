// Upwords: the 10x10 board with each stack's height, your own rack only (the server sends
// nothing else), tiles placed by clicking a rack tile then a square (or typing the play in
// notation), and play, pass, exchange, challenge, accept; scores and the bag.
//
// Challenge and Accept name the pending play on the screen (`play`): one that arrives after
// another play (or none) is pending is refused PLAY_CHANGED and nothing is done; the page then
// fetches the game and draws it as it is (`stale`, the same as Take Four's ROUND_CHANGED), so
// the player sees the play pending now and can answer that one.
import { unary } from "./api";
import { h } from "./dom";
import { commandId, seatName, type GameKind, type View } from "./play";
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
const draft = { gameId: "", version: -1n, placed: [] as Placed[], chosen: -1 };

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

function square(game: Game, view: View, row: number, col: number, myTurn: boolean): HTMLElement {
  const stack = game.board[row * SIZE + col]?.tiles ?? [];
  const placed = draft.placed.find((p) => p.row === row && p.col === col);
  const top = placed ? placed.tile : stack[stack.length - 1] ?? "";
  const height = stack.length + (placed ? 1 : 0);
  const centre = (row === 4 || row === 5) && (col === 4 || col === 5);
  const classes = ["uw-sq", height > 1 ? `h${Math.min(height, 5)}` : "", centre ? "centre" : "", placed ? "placed" : ""];
  return h(
    "button",
    {
      class: classes.filter(Boolean).join(" "),
      "data-square": `${row},${col}`,
      "data-height": height,
      title: `${row + 1}${COLUMNS[col]}${stack.length ? ` stack: ${stack.join(" ")}` : ""}`,
      disabled: !myTurn,
      onclick: () => {
        if (placed) {
          draft.placed = draft.placed.filter((p) => p !== placed);
        } else if (draft.chosen >= 0) {
          draft.placed.push({ row, col, tile: game.rack[draft.chosen], rackIndex: draft.chosen });
          draft.chosen = -1;
        }
        view.rerender();
      },
    },
    top,
    height ? h("span", { class: "h" }, height) : null,
  );
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
      return game.retry ? "Your play was withdrawn: play again or pass." : "Your turn: pick a tile, then a square.";
    return `${seatName(game.seats, game.toMove)} to move.`;
  },
  board(game, view) {
    if (draft.gameId !== game.gameId || game.version !== draft.version) {
      if (draft.gameId !== game.gameId || game.toMove !== view.seat) reset(game);
      draft.version = game.version;
    }
    const myTurn = view.live && game.status === Status.IN_PROGRESS && view.seat === game.toMove;
    const squares = [];
    for (let r = 0; r < SIZE; r++) for (let c = 0; c < SIZE; c++) squares.push(square(game, view, r, c, myTurn));
    const used = new Set(draft.placed.map((p) => p.rackIndex));
    const rack = game.rack.map((tile, i) =>
      h(
        "button",
        {
          class: `tile${draft.chosen === i ? " chosen" : ""}${used.has(i) ? " used" : ""}`,
          "data-tile": tile,
          "data-rack-index": i,
          disabled: used.has(i) || !view.live,
          onclick: () => {
            draft.chosen = draft.chosen === i ? -1 : i;
            view.rerender();
          },
        },
        tile,
      ),
    );
    const notation = h("input", { id: "uw-notation", placeholder: "or type a play: 5E WORD", size: 18 }) as HTMLInputElement;
    const canChallenge = view.live && game.pending !== undefined && view.seat !== undefined && game.pending.seat !== view.seat;
    const gameId = game.gameId;
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
                onclick: () => {
                  const move = notation.value.trim();
                  const placements = move ? [] : draft.placed.map(({ row, col, tile }) => ({ row, col, tile }));
                  send(view, game, () => unary(UpwordsService, "play", { gameId, placements, move, commandId: commandId() }));
                },
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
                title: "pick the rack tile to give back first",
                onclick: () => {
                  const tile = game.rack[draft.chosen];
                  send(view, game, () => unary(UpwordsService, "exchange", { gameId, tile, commandId: commandId() }));
                },
              },
              "Exchange",
            ),
            h("button", { id: "uw-challenge", disabled: !canChallenge, onclick: () => send(view, game, () => unary(UpwordsService, "challenge", answerRequest(game, commandId()))) }, "Challenge"),
            h("button", { id: "uw-accept", disabled: !canChallenge, onclick: () => send(view, game, () => unary(UpwordsService, "acceptPlay", answerRequest(game, commandId()))) }, "Accept"),
            h("button", { id: "uw-resign", onclick: () => confirm("Resign this game?") && send(view, game, () => unary(UpwordsService, "resign", { gameId, commandId: commandId() })) }, "Resign"),
            notation,
          )
        : null;
    const scores = game.seats.map((s) =>
      h("li", { class: `seat-${s.index}` }, h("span", { class: "swatch" }), `${nameOf(s)}: ${game.scores[s.index] ?? 0} points, ${game.rackSizes[s.index] ?? 0} tiles`),
    );
    return h(
      "div",
      { class: "uw", "data-turn": myTurn ? "mine" : "theirs" },
      h("div", { class: "uw-board", id: "uw-board" }, squares),
      view.seat !== undefined && game.rack.length ? h("div", { class: "rack", id: "rack" }, rack) : null,
      actions,
      h("ul", { class: "scores" }, scores, h("li", { id: "bag" }, `Bag: ${game.bagCount} tiles`)),
    );
  },
  async exportText(gameId, invite = "") {
    return (await unary(UpwordsService, "exportGame", { gameId, invite })).text;
  },
};
