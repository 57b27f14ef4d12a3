// The leaderboards' rows (src/leaderboard.ts): place, the player by handle (else by id), the
// rating rounded, games and record.
import { test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@parlor/client";
import { LeaderboardEntrySchema, PlayerRatingSchema } from "@parlor/client/gen/parlor/scoring/v1/scoring_pb";
import { rows } from "../../src/leaderboard";

const entry = (place: number, playerId: string, rating: number, w: number, d: number, l: number) =>
  create(LeaderboardEntrySchema, { place, rating: create(PlayerRatingSchema, { playerId, rating, games: w + d + l, wins: w, draws: d, losses: l }) });

test("each player is shown by handle when they have one, else by id", () => {
  const handles = new Map([["acct-1", "bob"]]);
  const shown = rows([entry(1, "acct-1", 1712.6, 9, 1, 2), entry(2, "guest-7", 1650.2, 5, 0, 4), create(LeaderboardEntrySchema, { place: 3 })], (p) => handles.get(p.playerId) || p.playerId);
  assert.deepEqual(
    shown.map((r) => [r.place, r.name, r.rating, r.games, r.record]),
    [
      [1, "bob", 1713, 12, "9-1-2"],
      [2, "guest-7", 1650, 9, "5-0-4"],
    ],
  );
});
