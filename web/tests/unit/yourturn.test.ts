// The lobby's "Your turn" list (src/yourturn.ts): whose turn a game's view says, games waiting
// for the player first and by earliest deadline (no clock: last), the count on the title.
import { test } from "node:test";
import assert from "node:assert/strict";
import { nextAfter, ordered, titled, waitingOf, type GameLike } from "../../src/yourturn";

const at = (ms: number) => ({ seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 });
const seat = (playerId: string) => ({ playerId, displayName: playerId });
const game = (gameId: string, toMove: number[], deadlines: (number | undefined)[], seats = ["me", "bob"]): GameLike => ({
  gameId,
  seats: seats.map(seat),
  seatsToMove: toMove,
  clocks: { seats: deadlines.map((d, i) => ({ seat: i, running: d !== undefined, deadline: d === undefined ? undefined : at(d) })) },
});

test("a game waits for the player when one of their seats is to move, with that seat's deadline", () => {
  assert.deepEqual(waitingOf("connect4x4", game("g1", [0], [5000, undefined]), "me"), { type: "connect4x4", gameId: "g1", myTurn: true, deadline: 5000 });
  assert.deepEqual(waitingOf("connect4x4", game("g2", [1], [undefined, 7000]), "me"), { type: "connect4x4", gameId: "g2", myTurn: false, deadline: 7000 });
  assert.equal(waitingOf("upwords", { gameId: "g3", seats: [seat("me")], seatsToMove: [0] }, "me").deadline, undefined); // untimed
  // Take Four's seats are nested in a view of each
  const nested = { gameId: "g4", seats: [{ seat: seat("bob") }, { seat: seat("me") }], seatsToMove: [1] };
  assert.equal(waitingOf("takefour", nested, "me").myTurn, true);
});

// Four games: two timed and one untimed waiting for the player, one for the other seat.
const fourGames = () => [
  waitingOf("c", game("late", [0], [9000, undefined]), "me"),
  waitingOf("c", game("theirs", [1], [undefined, 1000]), "me"),
  waitingOf("c", game("untimed", [0], [undefined, undefined]), "me"),
  waitingOf("c", game("soon", [0], [2000, undefined]), "me"),
];

test("your turn first, earliest deadline first, no clock last", () => {
  assert.deepEqual(ordered(fourGames()).map((w) => w.gameId), ["soon", "late", "untimed", "theirs"]);
});

test("the next game is the first other game waiting for the player, none when none waits", () => {
  const games = fourGames();
  assert.equal(nextAfter(games, "untimed")?.gameId, "soon");
  assert.equal(nextAfter(games, "soon")?.gameId, "late");
  assert.equal(nextAfter(games.slice(1, 3), "untimed"), undefined);
});

test("the page title counts the games waiting, and loses the count when none waits", () => {
  assert.equal(titled("Parlor", 3), "(3) Parlor");
  assert.equal(titled("(3) Parlor", 1), "(1) Parlor");
  assert.equal(titled("(2) Parlor", 0), "Parlor");
});
