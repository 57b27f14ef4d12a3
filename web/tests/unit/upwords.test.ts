// Upwords' answers to a pending play (src/upwords.ts): a Challenge or AcceptPlay names the
// play on the screen, so one that arrives after another play is refused (PLAY_CHANGED), and
// on that refusal the page draws the game again as the server has it (GameKind.stale,
// src/play.ts), showing the play pending now.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Game, PendingPlay } from "@parlor/client/gen/parlor/upwords/v1/upwords_pb";
import { ApiError } from "../../src/api";
import { staleRefusal } from "../../src/play";
import { takefour } from "../../src/takefour";
import { answerRequest, upwords } from "../../src/upwords";

const pending = (number: number) => ({ seat: 1, placements: [], words: ["qua"], score: 6, number }) as unknown as PendingPlay;
const game = (p?: PendingPlay) => ({ gameId: "g1", pending: p }) as unknown as Game;

test("a challenge or accept names the pending play the player saw", () => {
  assert.deepEqual(answerRequest(game(pending(7)), "c1"), { gameId: "g1", play: 7, commandId: "c1" });
});

test("with no play pending on the screen it names none (0: the server checks nothing)", () => {
  assert.deepEqual(answerRequest(game(), "c2"), { gameId: "g1", play: 0, commandId: "c2" });
});

test("PLAY_CHANGED makes the page draw the game again; other refusals do not", () => {
  const changed = new ApiError("FAILED_PRECONDITION", "PLAY_CHANGED", "another play is pending");
  assert.equal(staleRefusal(upwords, changed), true);
  assert.equal(staleRefusal(upwords, new ApiError("FAILED_PRECONDITION", "NOTHING_TO_CHALLENGE", "x")), false);
  assert.equal(staleRefusal(upwords, new ApiError("FAILED_PRECONDITION", "ROUND_CHANGED", "x")), false);
  assert.equal(staleRefusal(upwords, new Error("PLAY_CHANGED")), false);
  assert.equal(staleRefusal(takefour, changed), false);
});
