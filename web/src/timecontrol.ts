// The time controls the lobby lets a player choose, without the DOM. The server says what a
// game type takes (ListGameTypes: its offered time_controls and its default_time_control;
// docs/api.md), so the page lists exactly those, labelled as the clocks label them
// (controlLabel: "5+3", "30 s per move", "2 days per move"), and never makes one up.
import { TimeControl_Kind as Kind, type TimeControl } from "@parlor/client/gen/parlor/common/v1/common_pb";
import { controlLabel } from "./clock";

export interface Choice {
  // What the request sends as its time_control; undefined sends none (the server's default).
  control: TimeControl | undefined;
  label: string;
}

// A list of choices and the one chosen at first.
export interface Choices {
  choices: Choice[];
  selected: number;
}

export const UNTIMED_LABEL = "untimed";

function label(tc: TimeControl): string {
  return tc.kind === Kind.NONE ? UNTIMED_LABEL : controlLabel(tc);
}

function same(a: TimeControl, b: TimeControl): boolean {
  return a.kind === b.kind && a.initialSeconds === b.initialSeconds && a.incrementSeconds === b.incrementSeconds && a.moveSeconds === b.moveSeconds;
}

const named = (tc: TimeControl | undefined): tc is TimeControl => tc !== undefined && tc.kind !== Kind.UNSPECIFIED;

// A ticket's or a lobby's choices: the offered time controls in the server's order, the
// default among them (put first if the list lacks it) and chosen. "untimed" only where the
// game type offers it (a KIND_NONE entry), or alone for a game without clocks (nothing
// offered, no default): then nothing is sent, which is what such a game takes.
export function ticketChoices(offered: TimeControl[], fallback: TimeControl | undefined): Choices {
  const listed = offered.filter(named);
  if (named(fallback) && !listed.some((tc) => same(tc, fallback))) listed.unshift(fallback);
  if (!listed.length) return { choices: [{ control: undefined, label: UNTIMED_LABEL }], selected: 0 };
  const selected = named(fallback) ? listed.findIndex((tc) => same(tc, fallback)) : 0;
  return { choices: listed.map((tc) => ({ control: tc, label: label(tc) })), selected };
}

// A game against bots (CreateGame): untimed first and chosen, as the server makes a game
// whose other seats are all bots when it names none (bots never run out of time), then the
// ticket's time controls for a player who wants a clock of their own.
export function botChoices(offered: TimeControl[], fallback: TimeControl | undefined): Choices {
  const timed = ticketChoices(offered, fallback).choices.filter((c) => c.control && c.control.kind !== Kind.NONE);
  return { choices: [{ control: undefined, label: UNTIMED_LABEL }, ...timed], selected: 0 };
}
