"""Re-run today's rules over a stored game: every stored event must be what they decide now.

For each stored event after the game's creation, the game's ``command_of(state,
event)`` hook rebuilds the command that produced it (Connect 4x4:
``CheckerDropped`` -> ``DropChecker``); events that are the consequence of a
command in the same decision (skips, wins, ties, ``GameFinished``) get ``None``
and are compared against what ``decide`` returned. The command is decided on
the replayed state and its events compared one by one with the stored ones;
the first difference is reported with the version where it starts. The
creation is checked the same way when the game gives ``create_of`` (the create
command rebuilt from the stored seats, config and draws); without it, the
events before the first player's command are taken as given.

Given who each event's metadata says made it (``actors``: ``Metadata.actor``, the caller's
player id), the acting seat is checked too: a seat's own command (one whose command has a
``seat``, the clock's timeouts aside) must have been made by the player that holds that
seat in ``SeatsTaken`` (another seat's player: ``WRONG_SEAT``; nobody seated:
``NOT_SEATED``), and the seat its first event records (``clock_seat``) must be the
command's (``WRONG_SEAT``). Whether that seat could act then (its turn, not forfeited) is
the rules': the command rebuilt from the stored event carries the event's seat and is
decided again (``COMMAND_REFUSED``, e.g. ``NOT_YOUR_TURN``). Events whose metadata names no
actor (a copy made without it) are checked by their rules only.

Given the times the events record (``stamps``, from their metadata: ``stamps_of``), the
clocks are checked too, from the events alone (``timecheck.py``): each stored event is
folded with its time, as the host loads a game, and a time the host would not have
decided so (a timeout not yet due, a move after a deadline, a time going back) is the
divergence at its version.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from parlor.core.decider import Decider
from parlor.core.errors import ParlorError
from parlor.gamehost.table.clocks import Stamp
from parlor.gamehost.verify.timecheck import Problem, Timekeeper

S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")

CommandOf = Callable[[S, E], C | None]
"""(state before the event, stored event) -> the command that made it, or None if it follows."""

CreateOf = Callable[[Sequence[E]], C]
"""The stored events from the first -> the command that created the game (seats, config, draws)."""

EVENT_DIFFERS = "EVENT_DIFFERS"
COMMAND_REFUSED = "COMMAND_REFUSED"
NOT_DECIDED = "NOT_DECIDED"
EVENTS_MISSING = "EVENTS_MISSING"
UNREADABLE = "UNREADABLE"
FINAL_STATE_DIFFERS = "FINAL_STATE_DIFFERS"
WRONG_SEAT = "WRONG_SEAT"
NOT_SEATED = "NOT_SEATED"


@dataclass(frozen=True, slots=True)
class Divergence:
    """Where the stored game and today's rules part: the first version that differs, and why."""

    version: int
    reason: str
    detail: str


@dataclass(frozen=True, slots=True)
class Verdict(Generic[S]):
    """The outcome of verifying one stream."""

    stream_id: str
    events: int
    commands: int
    divergence: Divergence | None
    final: S | None = None

    @property
    def ok(self) -> bool:
        return self.divergence is None


def verify_history(
    decider: Decider[S, C, E],
    command_of: CommandOf[S, E, C],
    events: Sequence[E],
    *,
    stream_id: str = "",
    first_version: int = 1,
    create_of: CreateOf[E, C] | None = None,
    stamps: Sequence[Stamp | None] | None = None,
    actors: Sequence[str | None] | None = None,
) -> Verdict[S]:
    """Check ``events`` (stored versions ``first_version``...) against ``decider`` as it is now;
    with ``stamps`` (each event's recorded time, ``stamps_of``), a timed game's clocks too;
    with ``actors`` (who each event's metadata says made it), that each seat's own command
    was made by its holder."""
    clocks = Timekeeper(decider, events, stamps or (), first_version)

    def clock_problem(at: int, problem: Problem | None, done: int) -> Verdict[S] | None:
        if problem is None:
            return None
        reason, detail = problem
        return Verdict(stream_id, len(events), done, Divergence(first_version + at, reason, detail))

    state = decider.initial_state()
    i = 0
    if create_of is None:
        # Creation as given: everything before the first event that a player's command made.
        while i < len(events) and command_of(state, events[i]) is None:
            if found := clock_problem(i, clocks.recorded(i, i), 0):
                return found
            state = clocks.fold(state, events[i], i)
            i += 1
    commands = 0
    while i < len(events):
        version = first_version + i
        stored = events[i]
        if found := clock_problem(i, clocks.recorded(i, i), commands):
            return found
        command: C | None
        if i == 0 and create_of is not None:
            try:
                command = create_of(events)
            except (LookupError, TypeError, ValueError, AttributeError) as exc:
                return Verdict(
                    stream_id,
                    len(events),
                    0,
                    Divergence(version, NOT_DECIDED, f"no creation at the start: {exc!r}"),
                )
        else:
            stamp = stamps[i] if stamps is not None and i < len(stamps) else None
            command = command_of(state, stored) or _table_command(stored, stamp)
        if command is None:
            return Verdict(
                stream_id,
                len(events),
                commands,
                Divergence(
                    version,
                    NOT_DECIDED,
                    f"stored {_name(stored)} follows from no command the rules decided here",
                ),
            )
        try:
            decided = list(decider.decide(state, command))
        except ParlorError as exc:
            return Verdict(
                stream_id,
                len(events),
                commands,
                Divergence(version, COMMAND_REFUSED, f"the rules now refuse {command!r}: {exc}"),
            )
        commands += 1
        if i > 0:
            stamp = stamps[i] if stamps is not None and i < len(stamps) else None
            actor = actors[i] if actors is not None and i < len(actors) else None
            if found := clock_problem(i, _acting(decider, state, command, stamp, actor), commands):
                return found
        if i > 0 and (found := clock_problem(i, clocks.command(state, command, i), commands)):
            return found
        for k, expected in enumerate(decided):
            if i + k >= len(events):
                return Verdict(
                    stream_id,
                    len(events),
                    commands,
                    Divergence(version + k, EVENTS_MISSING, f"the rules also decide {expected!r}"),
                )
            if events[i + k] != expected:
                return Verdict(
                    stream_id,
                    len(events),
                    commands,
                    Divergence(
                        version + k,
                        EVENT_DIFFERS,
                        f"stored {events[i + k]!r}, the rules decide {expected!r}",
                    ),
                )
            if k and (found := clock_problem(i + k, clocks.recorded(i + k, i), commands)):
                return found
        for k, event in enumerate(decided):
            state = clocks.fold(state, event, i + k)
        i += len(decided)
    stored_final = decider.initial_state()
    for k, event in enumerate(events):
        stored_final = clocks.fold(stored_final, event, k)
    if stored_final != state:
        return Verdict(
            stream_id,
            len(events),
            commands,
            Divergence(
                first_version + len(events) - 1,
                FINAL_STATE_DIFFERS,
                "the stored events fold to another state than the decided ones",
            ),
        )
    return Verdict(stream_id, len(events), commands, None, state)


def _acting(
    decider: Any, state: Any, command: Any, stamp: Stamp | None, actor: str | None
) -> Problem | None:
    """Whether the seat ``command`` acts for is the one its metadata records, and ``actor``
    (the recorded maker) holds it. Commands of no seat (a round's shuffle) and timeouts (the
    clock's, appended with whoever's command found them due) are nobody's to check."""
    seat = getattr(command, "seat", None)
    seats = getattr(state, "seats", None)
    if not isinstance(seat, int) or not seats or not 0 <= seat < len(seats):
        return None
    timing = getattr(decider, "timing", None)
    if timing is not None and timing.timeout_seat(command) is not None:
        return None
    name = type(command).__name__
    if stamp is not None and stamp.seat is not None and stamp.seat != seat:
        return (
            WRONG_SEAT,
            f"seat {seat}'s {name}, but its metadata records seat {stamp.seat} as acting"
            " (clock_seat)",
        )
    holder = seats[seat].player_id
    if actor is None or actor == holder:
        return None
    mine = [i for i, s in enumerate(seats) if s.player_id == actor]
    if mine:
        held = ", ".join(str(i) for i in mine)
        return (
            WRONG_SEAT,
            f"seat {seat}'s {name} recorded as made by {actor!r}, who holds seat {held},"
            f" not seat {seat} (held by {holder!r})",
        )
    return (
        NOT_SEATED,
        f"seat {seat}'s {name} recorded as made by {actor!r}, who holds no seat in this game"
        f" (seat {seat} is held by {holder!r})",
    )


def _table_command(event: object, stamp: Stamp | None = None) -> Any:
    """The table's own commands that leave a mark: an aborted game (clocks.py), the clock's
    or, where its stamp records the seat that acted (``clock_seat``), that seat's own
    (its window is the service's setting, not in the events: the rules check the rest);
    a seat gone berserk (``SeatBerserked``: the seat is in the event)."""
    from parlor.gamehost.table.clocks import ABORTED, Abort, Berserk
    from parlor.gamehost.table.seating import GameFinished, SeatBerserked

    if isinstance(event, GameFinished) and event.reason == ABORTED:
        return Abort(stamp.seat if stamp is not None and stamp.first else None)
    if isinstance(event, SeatBerserked):
        return Berserk(event.seat)
    return None


def unreadable(stream_id: str, version: int, exc: Exception) -> Verdict[object]:
    """A stored event that no longer decodes is a divergence at its version."""
    return Verdict(stream_id, 0, 0, Divergence(version, UNREADABLE, str(exc)))


def _name(event: object) -> str:
    return type(event).__name__
