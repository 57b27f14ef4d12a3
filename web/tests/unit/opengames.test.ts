// A player's games in progress (src/opengames.ts): who each is played against, and the words
// the lobby shows when a new game is refused for too many unfinished ones.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ApiError } from "../../src/api";
import { connect4x4 } from "../../src/connect4x4";
import { takefour } from "../../src/takefour";
import { upwords } from "../../src/upwords";
import { IN_PROGRESS_HEADING, leaves, openGamesRefusal, opponents, resigns } from "../../src/opengames";

const KINDS = [connect4x4, takefour, upwords];
const seat = (playerId: string, displayName = "") => ({ playerId, displayName });
const tooMany = (gameType: string, most = "20") =>
  new ApiError("RESOURCE_EXHAUSTED", "TOO_MANY_OPEN_GAMES", "you already have 20 unfinished games", {
    max_open_games: most,
    game_type: gameType,
  });

test("a game in progress names everyone seated but the player", () => {
  assert.equal(opponents([seat("me", "Ada"), seat("bot:random", "random bot")], "me"), "random bot");
  assert.equal(opponents([seat("me"), seat("bob", "Bob"), seat("bot:easy")], "me"), "Bob and bot:easy");
  assert.equal(opponents([seat("carol", "Carol"), seat("me"), seat("bob", "Bob"), seat("dan", "Dan")], "me"), "Carol, Bob and Dan");
  assert.equal(opponents([seat("me"), seat("me")], "me"), "yourself");
  // shown as the page names players: an account by its handle, the rest as they sat down
  const handles = new Map([["acct-1", "bob"]]);
  const byHandle = (s: { playerId: string; displayName: string }) => handles.get(s.playerId) || s.displayName || s.playerId;
  assert.equal(opponents([seat("me"), seat("acct-1", "acct-1"), seat("bot:easy", "easy bot")], "me", byHandle), "bob and easy bot");
});

test("too many open games is said in words, with the game, the most allowed and where to end one", () => {
  const said = openGamesRefusal(tooMany("connect4x4"), KINDS);
  assert.equal(
    said,
    `You already have 20 Connect 4x4 games in progress, the most one player may have at once. ` +
      `To start another, open one under “${IN_PROGRESS_HEADING}” below and finish or resign one of them.`,
  );
  assert.match(openGamesRefusal(tooMany("upwords", "3"), KINDS) ?? "", /^You already have 3 Upwords games in progress/);
  assert.match(openGamesRefusal(tooMany("upwords", "1"), KINDS) ?? "", /^You already have 1 Upwords game in progress/);
});

test("a game whose seats leave instead of resigning (Take Four) is to be finished or left", () => {
  assert.equal(resigns(connect4x4), true);
  assert.equal(resigns(upwords), true);
  assert.equal(resigns(takefour), false);
  assert.equal(leaves(takefour), true);
  assert.equal(leaves(connect4x4), false);
  assert.match(openGamesRefusal(tooMany("takefour"), KINDS) ?? "", /and finish or leave one of them\.$/);
});

test("other refusals, and a game type the page does not know, are left to the usual line", () => {
  assert.equal(openGamesRefusal(new ApiError("RESOURCE_EXHAUSTED", "TOO_MANY_STREAMS", "busy"), KINDS), undefined);
  assert.equal(openGamesRefusal(new Error("TOO_MANY_OPEN_GAMES"), KINDS), undefined);
  assert.match(openGamesRefusal(tooMany("chess"), KINDS) ?? "", /^You already have 20 games of this type in progress/);
});
