// The clocks' arithmetic and writing (src/clock.ts): counted from the view's asOf in the
// server's time, never above what the server sent nor below zero, stopped clocks still.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TimeControl_Kind as Kind, type Clocks, type TimeControl } from "@parlor/client/gen/parlor/common/v1/common_pb";
import { controlLabel, faces, formatClock, lowTime, remainingAt, ServerTime, timed } from "../../src/clock";

const at = (ms: number) => ({ seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 });
const control = (kind: Kind, more: Partial<TimeControl> = {}) =>
  ({ kind, initialSeconds: 0, incrementSeconds: 0, moveSeconds: 0, ...more }) as TimeControl;
const FISCHER = control(Kind.FISCHER, { initialSeconds: 300, incrementSeconds: 3 });
const T0 = 1_780_000_000_000; // the server's asOf, ms

// Seat 0 to move with 4:52.5 left as of T0; seat 1 stopped at 5:00.
function clocks(tc = FISCHER, asOf: number | undefined = T0): Clocks {
  return {
    timeControl: tc,
    asOf: asOf === undefined ? undefined : at(asOf),
    seats: [
      { seat: 0, remaining: at(292_500), deadline: at(T0 + 292_500), running: true, timedOut: false },
      { seat: 1, remaining: at(300_000), running: false, timedOut: false },
    ],
  } as unknown as Clocks;
}

test("a running clock counts down from asOf; a stopped one does not", () => {
  const c = clocks();
  assert.equal(remainingAt(c, c.seats[0]!, T0), 292_500);
  assert.equal(remainingAt(c, c.seats[0]!, T0 + 2_500), 290_000);
  assert.equal(remainingAt(c, c.seats[1]!, T0 + 2_500), 300_000);
});

test("never more than the server sent, never below zero, and not ticking when told", () => {
  const c = clocks();
  assert.equal(remainingAt(c, c.seats[0]!, T0 - 10_000), 292_500); // the page's estimate is early
  assert.equal(remainingAt(c, c.seats[0]!, T0 + 400_000), 0); // the server announces the timeout
  assert.equal(remainingAt(c, c.seats[0]!, T0 + 60_000, false), 292_500); // a finished game, a replay
});

test("without asOf a running clock counts to its deadline", () => {
  const c = clocks(FISCHER, undefined);
  assert.equal(remainingAt(c, c.seats[0]!, T0 + 92_500), 200_000);
});

test("the server's time: a round trip's middle, raised by any view known to be earlier", () => {
  const time = new ServerTime();
  assert.equal(time.at(1_000), 1_000); // nothing known: the local time
  time.seen(T0, 5_000); // a view of asOf T0 arrived at local 5000: the offset is at least T0-5000
  assert.equal(time.at(6_000), T0 + 1_000);
  time.roundTrip(T0 + 10_000, 10_000, 10_200); // computed between local 10000 and 10200
  assert.equal(time.at(10_100), T0 + 10_000);
  time.seen(T0 + 20_000, 10_100); // a later view proves the server further on
  assert.equal(time.at(10_100), T0 + 20_000);
});

test("an old picture replayed at the watch's start is counted from its own moment", () => {
  // GetGame: asOf T0+60s at local 1000 (the game has run a minute since the event's asOf T0)
  const time = new ServerTime();
  time.seen(T0, 990); // the stream's old frame arriving now bounds nothing useful
  time.roundTrip(T0 + 60_000, 950, 1_050);
  const c = clocks();
  assert.equal(remainingAt(c, c.seats[0]!, time.at(1_000)), 232_500);
});

test("clocks written as a player reads them", () => {
  const F = Kind.FISCHER;
  const C = Kind.CORRESPONDENCE;
  assert.equal(formatClock(300_000, F), "5:00");
  assert.equal(formatClock(292_999, F), "4:52");
  assert.equal(formatClock(59_999, F), "0:59");
  assert.equal(formatClock(9_460, F), "0:09.4");
  assert.equal(formatClock(0, F), "0:00.0");
  assert.equal(formatClock(-5, F), "0:00.0");
  assert.equal(formatClock(3_723_000, F), "1:02:03");
  assert.equal(formatClock(172_800_000, C), "2d");
  assert.equal(formatClock(172_799_000, C), "1d 23h");
  assert.equal(formatClock(5 * 3_600_000 + 12 * 60_000 + 5_000, C), "5h 12m");
  assert.equal(formatClock(3 * 3_600_000, C), "3h");
  assert.equal(formatClock(59 * 60_000 + 1_000, C), "59:01");
  assert.equal(formatClock(5_000, C), "0:05"); // no tenths in correspondence
});

test("the time control in a word", () => {
  assert.equal(controlLabel(FISCHER), "5+3");
  assert.equal(controlLabel(control(Kind.FISCHER, { initialSeconds: 90, incrementSeconds: 0 })), "1.5+0");
  assert.equal(controlLabel(control(Kind.PER_MOVE, { moveSeconds: 30 })), "30 s per move");
  assert.equal(controlLabel(control(Kind.PER_MOVE, { moveSeconds: 120 })), "2 min per move");
  assert.equal(controlLabel(control(Kind.CORRESPONDENCE, { moveSeconds: 172_800 })), "2 days per move");
  assert.equal(controlLabel(control(Kind.CORRESPONDENCE, { moveSeconds: 86_400 })), "1 day per move");
  assert.equal(controlLabel(control(Kind.NONE)), "");
});

test("low time: an eighth of the allowance, 10 s to 60 s live, up to 12 h by correspondence", () => {
  assert.equal(lowTime(37_000, FISCHER), true); // 300 s / 8 = 37.5 s
  assert.equal(lowTime(38_000, FISCHER), false);
  assert.equal(lowTime(9_000, control(Kind.PER_MOVE, { moveSeconds: 30 })), true); // at least 10 s
  assert.equal(lowTime(11_000, control(Kind.PER_MOVE, { moveSeconds: 30 })), false);
  assert.equal(lowTime(59_000, control(Kind.FISCHER, { initialSeconds: 3600 })), true); // at most 60 s
  assert.equal(lowTime(61_000, control(Kind.FISCHER, { initialSeconds: 3600 })), false);
  const days = control(Kind.CORRESPONDENCE, { moveSeconds: 7 * 86_400 }); // an eighth: 21 h
  assert.equal(lowTime(11 * 3_600_000, days), true);
  assert.equal(lowTime(13 * 3_600_000, days), false);
  assert.equal(lowTime(0, FISCHER), true);
});

test("untimed games show no clocks", () => {
  assert.equal(timed(undefined), false);
  assert.equal(timed({ timeControl: control(Kind.NONE), seats: [] } as unknown as Clocks), false);
  assert.equal(timed({ seats: [] } as unknown as Clocks), false);
  assert.equal(timed(clocks()), true);
});

test("faces: the running seat marked, low and out of time flagged; nothing runs when stopped", () => {
  const c = clocks();
  c.seats[1]!.timedOut = true;
  const [a, b] = faces(c, T0 + 260_000, true);
  assert.deepEqual(a, { seat: 0, text: "0:32", ms: 32_500, running: true, low: true, timedOut: false });
  assert.equal(b!.running, false);
  assert.equal(b!.timedOut, true);
  assert.equal(b!.low, false);
  const [still] = faces(c, T0 + 260_000, false);
  assert.equal(still!.running, false);
  assert.equal(still!.text, "4:52");
});
