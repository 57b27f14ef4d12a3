// The boards' words without a browser: coordinates in the rules' own numbering, what a typed
// letter takes from the rack, the move list's lines naming each player.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Game as C4Game } from "@parlor/client/gen/parlor/connect4x4/v1/connect4x4_pb";
import { cellName, connect4x4, lineWords } from "../../src/connect4x4";
import { moveLine, moveOf, playersTitle } from "../../src/play";
import { takefour } from "../../src/takefour";
import { rackIndexFor, squareName, upwords } from "../../src/upwords";

const seats = [
  { index: 0, playerId: "guest-1", displayName: "Ada" },
  { index: 1, playerId: "bot:random", displayName: "random bot" },
];

test("Connect 4x4 cells: columns a-g, rows from 0 at the bottom, the side", () => {
  assert.equal(cellName(0, 0, "f"), "a0 front");
  assert.equal(cellName(6, 5, "b"), "g5 back");
  assert.equal(lineWords({ line: [{ column: 2, row: 0 }, { column: 3, row: 1 }] } as unknown as C4Game), "c0, d1");
});

test("Upwords squares: row 1-10 then column A-J, as the notation (5E is row 4, column 4)", () => {
  assert.equal(squareName(4, 4), "5E");
  assert.equal(squareName(9, 9), "10J");
  assert.equal(squareName(0, 0), "1A");
});

test("a typed letter takes the first unused rack tile of that letter; Q takes Qu", () => {
  const rack = ["E", "Qu", "E", "T"];
  assert.equal(rackIndexFor(rack, new Set(), "e"), 0);
  assert.equal(rackIndexFor(rack, new Set([0]), "E"), 2);
  assert.equal(rackIndexFor(rack, new Set([0, 2]), "e"), -1);
  assert.equal(rackIndexFor(rack, new Set(), "q"), 1);
  assert.equal(rackIndexFor(rack, new Set(), "x"), -1);
});

test("the move list names the player: by the seat its event's body names", () => {
  const drop = { notation: "df", body: { case: "checkerDropped", value: { seat: 1, column: 3, row: 0, side: 1 } } };
  const move = moveOf(connect4x4, drop, {} as C4Game)!;
  assert.equal(moveLine(seats, move), "random bot: df (checker to d0 front)");
  assert.equal(moveOf(connect4x4, { notation: "", body: { case: "gameWon", value: {} } }, {} as C4Game), undefined);
});

test("Upwords' moves with their score; a pass in words, not '-'", () => {
  const played = { notation: "5E WORD", body: { case: "wordPlayed", value: { seat: 0, score: 12 } } };
  assert.equal(moveLine(seats, upwords.move!(played, {} as never)!), "Ada: 5E WORD 12");
  assert.equal(moveLine(seats, upwords.move!({ notation: "-", body: { case: "passed", value: { seat: 1 } } }, {} as never)!), "random bot: passed");
});

test("Take Four's events, which carry no notation, still make a move list", () => {
  const placed = { notation: "", body: { case: "tilePlaced", value: { seat: 0, secret: { x: 1, y: -2, letter: "E" } } } };
  assert.equal(moveLine(seats, takefour.move!(placed, { round: 1 } as never)!), "Ada: placed E at 1,-2");
  const hidden = { notation: "", body: { case: "tilePlaced", value: { seat: 1 } } };
  assert.equal(moveLine(seats, takefour.move!(hidden, { round: 1 } as never)!), "random bot: placed a tile");
  assert.equal(takefour.move!({ notation: "", body: { case: "tilesDealt", value: {} } }, { round: 1 } as never), undefined);
});

test("a page's title names the players", () => {
  assert.equal(playersTitle(seats), "Ada v random bot");
});
