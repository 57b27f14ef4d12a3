// Upwords' answers to a pending play (src/upwords.ts): a Challenge or AcceptPlay names the
// play on the screen, so one that arrives after another play is refused (PLAY_CHANGED).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Game, PendingPlay } from "@parlor/client/gen/parlor/upwords/v1/upwords_pb";
import { answerRequest } from "../../src/upwords";

const pending = (number: number) => ({ seat: 1, placements: [], words: ["qua"], score: 6, number }) as unknown as PendingPlay;
const game = (p?: PendingPlay) => ({ gameId: "g1", pending: p }) as unknown as Game;

test("a challenge or accept names the pending play the player saw", () => {
  assert.deepEqual(answerRequest(game(pending(7)), "c1"), { gameId: "g1", play: 7, commandId: "c1" });
});

test("with no play pending on the screen it names none (0: the server checks nothing)", () => {
  assert.deepEqual(answerRequest(game(), "c2"), { gameId: "g1", play: 0, commandId: "c2" });
});
