// A game's configuration as the lobby's forms send it (src/gameconfig.ts): Take Four's tile
// set as the rules write it, each game's Config with only the fields changed from the
// defaults, and the bytes a challenge carries, which decode as the game's own Config.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fromBinary } from "@parlor/client";
import { ConfigSchema as C4Config } from "@parlor/client/gen/parlor/connect4x4/v1/connect4x4_pb";
import { Checking, ConfigSchema as TakeFourConfig } from "@parlor/client/gen/parlor/takefour/v1/takefour_pb";
import { ConfigSchema as UpwordsConfig, WordChecking } from "@parlor/client/gen/parlor/upwords/v1/upwords_pb";
import { configBytes, configInit, parseTiles } from "../../src/gameconfig";

test("a tile set is letters and counts, ? the jokers, each letter at the platform's value", () => {
  assert.equal(parseTiles("  "), undefined);
  assert.deepEqual(parseTiles("a2 Q1, ?3"), {
    letters: [
      { letter: "A", count: 2, value: 1 },
      { letter: "Q", count: 1, value: 10 },
    ],
    jokers: 3,
  });
  assert.match(String(parseTiles("A2 A3")), /A is written twice/);
  assert.match(String(parseTiles("AB2")), /"AB2" is not a letter and a count/);
});

test("a config holds only what differs from the game's defaults", () => {
  assert.equal(configInit("connect4x4", { firstSeat: 0, blockersCount: false }), undefined);
  assert.equal(configInit("upwords", { challengeMode: false, pluralRule: true }), undefined);
  assert.equal(configInit("takefour", { checking: "honor", target: 0, maxRounds: 0, dealSize: 0, tiles: "" }), undefined);
  assert.deepEqual(configInit("connect4x4", { firstSeat: 1, blockersCount: true }), { firstSeat: 1, blockersCountTowardLines: true });
  assert.deepEqual(configInit("upwords", { challengeMode: true, pluralRule: false }), { wordChecking: WordChecking.CHALLENGE, pluralRule: false });
  assert.match(String(configInit("takefour", { maxRounds: 1001 })), /maxRounds is a whole number from 0 to 1000/);
  assert.match(String(configInit("takefour", { tiles: "E" })), /not a letter and a count/);
});

test("a challenge's config bytes decode as the game's own Config", () => {
  assert.equal(configBytes("upwords", undefined).length, 0);
  const tf = fromBinary(TakeFourConfig, configBytes("takefour", configInit("takefour", { checking: "auto", maxRounds: 1, tiles: "?8" }) as Record<string, unknown>));
  assert.equal(tf.checking, Checking.AUTO);
  assert.equal(tf.maxRounds, 1);
  assert.equal(tf.target, 0);
  assert.equal(tf.tiles?.jokers, 8);
  assert.deepEqual(tf.tiles?.letters, []);
  const uw = fromBinary(UpwordsConfig, configBytes("upwords", { wordChecking: WordChecking.CHALLENGE }));
  assert.equal(uw.wordChecking, WordChecking.CHALLENGE);
  assert.equal(uw.pluralRule, undefined);
  assert.equal(fromBinary(C4Config, configBytes("connect4x4", { blockersCountTowardLines: true })).blockersCountTowardLines, true);
});
