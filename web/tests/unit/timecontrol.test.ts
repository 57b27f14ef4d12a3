// The lobby's time-control choices (src/timecontrol.ts): what ListGameTypes offers, labelled
// as the clocks are, the default chosen, "untimed" only where it is offered.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TimeControl_Kind as Kind, type TimeControl } from "@parlor/client/gen/parlor/common/v1/common_pb";
import { botChoices, ticketChoices } from "../../src/timecontrol";

const control = (kind: Kind, more: Partial<TimeControl> = {}) =>
  ({ kind, initialSeconds: 0, incrementSeconds: 0, moveSeconds: 0, ...more }) as TimeControl;
const fischer = (initialSeconds: number, incrementSeconds: number) => control(Kind.FISCHER, { initialSeconds, incrementSeconds });
const OFFERED = [control(Kind.PER_MOVE, { moveSeconds: 30 }), fischer(180, 2), fischer(300, 3), control(Kind.CORRESPONDENCE, { moveSeconds: 172_800 })];

test("a ticket offers the game type's time controls in order, its default chosen", () => {
  const { choices, selected } = ticketChoices(OFFERED, fischer(300, 3));
  assert.deepEqual(choices.map((c) => c.label), ["30 s per move", "3+2", "5+3", "2 days per move"]);
  assert.equal(selected, 2);
  assert.equal(choices[1]!.control, OFFERED[1]); // sent as the server gave it
});

test("a default the list lacks comes first; untimed only when offered; a game without clocks sends none", () => {
  const lacking = ticketChoices(OFFERED.slice(0, 2), fischer(600, 5));
  assert.deepEqual(lacking.choices.map((c) => c.label), ["10+5", "30 s per move", "3+2"]);
  assert.equal(lacking.selected, 0);
  const withNone = ticketChoices([control(Kind.NONE), fischer(300, 3)], fischer(300, 3));
  assert.deepEqual(withNone.choices.map((c) => c.label), ["untimed", "5+3"]);
  assert.equal(withNone.selected, 1);
  const clockless = ticketChoices([], control(Kind.UNSPECIFIED));
  assert.deepEqual(clockless.choices, [{ control: undefined, label: "untimed" }]);
});

test("against bots: untimed first and chosen (sent as none), then the timed ones", () => {
  const { choices, selected } = botChoices([control(Kind.NONE), ...OFFERED], fischer(300, 3));
  assert.deepEqual(choices.map((c) => c.label), ["untimed", "30 s per move", "3+2", "5+3", "2 days per move"]);
  assert.equal(selected, 0);
  assert.equal(choices[0]!.control, undefined);
  assert.deepEqual(botChoices([], undefined).choices.map((c) => c.label), ["untimed"]);
});
