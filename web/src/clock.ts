// Game clocks in the browser, without the DOM: what a seat's clock shows at a moment, and how
// it is written. The server decides time (docs/api.md, Clocks): a view's remaining times are
// as of its `asOf` (an event's time in the watch stream and a move's answer; the moment of
// the call in GetGame of a game in play). So a running clock is counted down from `asOf` in
// the server's time, which the page estimates from the round trip of a GetGame (the lichess
// way: never the browser's wall clock, which may be minutes off), and never shows more than
// the server sent nor less than zero: a timeout is the server's to announce.
import { TimeControl_Kind as Kind, type Clocks, type SeatClock, type TimeControl } from "@parlor/client/gen/parlor/common/v1/common_pb";

// A protobuf Timestamp or Duration (seconds and nanos), in milliseconds.
export interface Instant {
  seconds: bigint;
  nanos: number;
}
export function millis(t: Instant | undefined): number | undefined {
  return t === undefined ? undefined : Number(t.seconds) * 1000 + Math.floor(t.nanos / 1e6);
}

// Whether a game's clocks are shown at all: an untimed game's views have none, or kind NONE.
export function timed(clocks: Clocks | undefined): clocks is Clocks {
  const kind = clocks?.timeControl?.kind ?? Kind.UNSPECIFIED;
  return kind !== Kind.UNSPECIFIED && kind !== Kind.NONE;
}

// The server's time as the page estimates it: server time = local (monotonic) time + offset.
// A GetGame of a game in play computed its `asOf` between the request leaving and the answer
// arriving, so the offset lies between asOf - received and asOf - sent: its middle is the
// estimate. Any view's `asOf` was computed before it arrived, which only bounds the offset
// from below (a view that arrives is never from the future); with no round trip yet that
// bound is the estimate (the view taken as arriving at once).
export class ServerTime {
  private low = -Infinity;
  private middle: number | undefined;

  // A view computed between `sent` and `received` (local times): GetGame of a game in play.
  roundTrip(asOf: number, sent: number, received: number): void {
    this.middle = asOf - (sent + received) / 2;
    this.seen(asOf, received);
  }

  // A view computed at `asOf` (server time) that arrived at `received` (local time).
  seen(asOf: number, received: number): void {
    this.low = Math.max(this.low, asOf - received);
  }

  offset(): number {
    if (this.middle !== undefined) return Math.max(this.middle, this.low);
    return Number.isFinite(this.low) ? this.low : 0;
  }

  at(local: number): number {
    return local + this.offset();
  }
}

// What one seat's clock shows at server time `now`; `ticking` false (a finished game, a
// replay) shows the remaining time as sent.
export function remainingAt(clocks: Clocks, seat: SeatClock, now: number, ticking = true): number {
  const left = Math.max(0, millis(seat.remaining) ?? 0);
  if (!ticking || !seat.running) return left;
  const asOf = millis(clocks.asOf);
  if (asOf !== undefined) return clamp(left - Math.max(0, now - asOf), 0, left);
  const deadline = millis(seat.deadline);
  return deadline === undefined ? left : clamp(deadline - now, 0, left);
}

function clamp(x: number, low: number, high: number): number {
  return Math.min(Math.max(x, low), high);
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// A clock as a player reads it: "4:52", "1:02:03" for a long game, "0:09.4" (tenths) in the
// last ten seconds of a live game; a day or more as "2d 5h", and correspondence in hours and
// minutes below a day ("5h 12m"), never "2880:00". Always rounded down, as a clock counts.
export function formatClock(ms: number, kind: Kind): string {
  const t = Math.max(0, Math.floor(ms));
  const correspondence = kind === Kind.CORRESPONDENCE;
  if (t >= DAY) {
    const d = Math.floor(t / DAY);
    const h = Math.floor((t % DAY) / HOUR);
    return h ? `${d}d ${h}h` : `${d}d`;
  }
  if (correspondence && t >= HOUR) {
    const h = Math.floor(t / HOUR);
    const m = Math.floor((t % HOUR) / MINUTE);
    return m ? `${h}h ${m}m` : `${h}h`;
  }
  const s = Math.floor((t % MINUTE) / SECOND);
  const ss = String(s).padStart(2, "0");
  if (t >= HOUR) return `${Math.floor(t / HOUR)}:${String(Math.floor((t % HOUR) / MINUTE)).padStart(2, "0")}:${ss}`;
  const m = Math.floor(t / MINUTE);
  if (!correspondence && t < 10 * SECOND) return `${m}:${ss}.${Math.floor((t % SECOND) / 100)}`;
  return `${m}:${ss}`;
}

// The time control in a word: "5+3", "30 s per move", "2 days per move".
export function controlLabel(tc: TimeControl | undefined): string {
  if (!tc) return "";
  switch (tc.kind) {
    case Kind.FISCHER:
      return `${formatMinutes(tc.initialSeconds)}+${tc.incrementSeconds}`;
    case Kind.PER_MOVE: {
      const s = tc.moveSeconds;
      return s >= 60 && s % 60 === 0 ? `${s / 60} min per move` : `${s} s per move`;
    }
    case Kind.CORRESPONDENCE: {
      const days = tc.moveSeconds / 86400;
      return Number.isInteger(days) ? `${days} day${days === 1 ? "" : "s"} per move` : `${formatClock(tc.moveSeconds * SECOND, tc.kind)} per move`;
    }
    default:
      return "";
  }
}

function formatMinutes(seconds: number): string {
  const m = seconds / 60;
  return Number.isInteger(m) ? String(m) : m.toFixed(1).replace(/\.0$/, "");
}

// Low time, highlighted: an eighth of the seat's full allowance (the bank or the move's
// time), at least 10 s and at most a minute in a live game; at most 12 hours in
// correspondence. A clock at zero is always low.
export function lowTime(ms: number, tc: TimeControl | undefined): boolean {
  if (ms <= 0) return true;
  if (!tc) return false;
  const full = (tc.kind === Kind.FISCHER ? tc.initialSeconds : tc.moveSeconds) * SECOND;
  const eighth = full / 8;
  const threshold = tc.kind === Kind.CORRESPONDENCE ? Math.min(eighth, 12 * HOUR) : clamp(eighth, 10 * SECOND, MINUTE);
  return ms < threshold;
}

// One seat's clock as the page draws it.
export interface Face {
  seat: number;
  text: string;
  ms: number;
  running: boolean; // counting down now
  low: boolean;
  timedOut: boolean;
}

// Every seat's clock at server time `now`.
export function faces(clocks: Clocks, now: number, ticking: boolean): Face[] {
  const kind = clocks.timeControl?.kind ?? Kind.UNSPECIFIED;
  return clocks.seats.map((seat) => {
    const ms = remainingAt(clocks, seat, now, ticking);
    return {
      seat: seat.seat,
      text: formatClock(ms, kind),
      ms,
      running: ticking && seat.running,
      low: !seat.timedOut && lowTime(ms, clocks.timeControl),
      timedOut: seat.timedOut,
    };
  });
}
