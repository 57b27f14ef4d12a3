// Take Four's commands (src/takefour.ts): each names the round on the screen, so one that
// arrives after the round ended is refused (ROUND_CHANGED), and on that refusal the page draws
// the game again as the server has it (GameKind.stale, src/play.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { TakeFourService, type Game } from "@parlor/client/gen/parlor/takefour/v1/takefour_pb";
import { ApiError } from "../../src/api";
import { staleRefusal } from "../../src/play";
import { ROUND_COMMANDS, roundRequest, takefour } from "../../src/takefour";
import { upwords } from "../../src/upwords";

const game = (round: number) => ({ gameId: "g1", round }) as unknown as Game;

test("a command names the game and the round on the screen, beside its own fields", () => {
  assert.deepEqual(roundRequest(game(3), { tile: 7, x: 1, y: -2, letter: "" }, "c1"), {
    tile: 7,
    x: 1,
    y: -2,
    letter: "",
    gameId: "g1",
    round: 3,
    commandId: "c1",
  });
  assert.deepEqual(roundRequest(game(1), {}, "c2"), { gameId: "g1", round: 1, commandId: "c2" });
});

test("every command the page sends has a round field, and every one with it but Leave is sent", () => {
  const withRound = Object.entries(TakeFourService.method)
    .filter(([, method]) => method.input.fields.some((f) => f.name === "round"))
    .map(([name]) => name)
    .sort();
  assert.deepEqual(withRound, [...ROUND_COMMANDS, "leave"].sort());
});

test("ROUND_CHANGED makes the page draw the game again; other refusals do not", () => {
  const changed = new ApiError("FAILED_PRECONDITION", "ROUND_CHANGED", "the round is over");
  assert.equal(staleRefusal(takefour, changed), true);
  assert.equal(staleRefusal(takefour, new ApiError("FAILED_PRECONDITION", "ROUND_NOT_IN_PLAY", "x")), false);
  assert.equal(staleRefusal(takefour, new Error("ROUND_CHANGED")), false);
  assert.equal(staleRefusal(upwords, changed), false);
});
