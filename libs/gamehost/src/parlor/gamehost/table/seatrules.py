"""The table's rules for what a seat asks of the game itself rather than of its rules:
abort (issue 41: a matched game a seat has not started) and berserk (issue 43: an arena's
half clock). ``SeatRules`` is what ``Seated`` (``parlor.gamehost.table.seating``) decides them
with; their values (``Abort``, ``Berserk``) are the clocks' (``parlor.gamehost.table.clocks``).
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any, Generic, TypeVar

from parlor.core.decider import Decider
from parlor.core.errors import FailedPrecondition, InvalidArgument
from parlor.core.game import Standing
from parlor.gamehost.table.clocks import ABORTED, Abort, Berserk, Timing
from parlor.gamehost.table.table import GameFinished, SeatBerserked, Table

S = TypeVar("S")


class SeatRules(Generic[S]):
    """Abort and berserk on a table of an engine's game with its timing (``Seated``'s)."""

    engine: Decider[S, Any, Any]
    timing: Timing[S] | None

    def is_terminal(self, state: Table[S]) -> bool:
        return state.aborted or self.engine.is_terminal(state.game)

    def _aborted(self, state: Table[S]) -> GameFinished:
        return GameFinished(ABORTED, tuple(Standing(1, departure=ABORTED) for _ in state.seats))

    def _abort(self, state: Table[S]) -> GameFinished:
        """``Abort``: only a game still going, formed by matchmaking, that a seat has not
        started (what the clock aborts when that seat runs out; see ``_fire``)."""
        if self.is_terminal(state):
            raise FailedPrecondition("the game is over: it cannot be aborted", reason="GAME_OVER")
        clock = state.clock
        if clock is None or not clock.matched:
            raise FailedPrecondition(
                "only a timed game formed by matchmaking can be aborted", reason="NOT_MATCHED"
            )
        if all(seat.acted for seat in clock.seats):
            raise FailedPrecondition(
                "every seat has made its first move: the game can no longer be aborted",
                reason="GAME_STARTED",
            )
        return self._aborted(state)

    def _abort_by(self, state: Table[S], command: Abort, at: datetime | None) -> GameFinished:
        """A seat's ``Abort`` (issue 41): a seat that makes no first move within the window
        lets the others abort the game, unrated and with no result. So a seat may end it
        when some other seat (not the caller's own: a player may hold several) has not made
        its first move (any first action, a bot's too) and that seat's clock has been
        running for at least ``command.window`` seconds (``SeatTime.since``: a turn-based
        game's seat from when its turn came, Take Four's every seat from the start).
        A seat out of the game (``Timing.out``: ran out, forfeited) is waited for no more.
        Refused otherwise, with what the caller can do: ``ABORT_TOO_LATE`` once every seat
        has moved (resign), ``ABORT_OWN_FIRST_MOVE`` when the only seats without a first
        move are the caller's, or the others' clocks have not started while the caller's
        runs (make it, or resign), ``ABORT_NOT_YET`` while the others' windows run or have
        not started (ErrorInfo ``retry_after_seconds``, ``abort_window_seconds``).
        ``window`` None (``parlor verify``): the time is checked apart; the rest is: some
        other seat still in the game had not moved. Only a timed game: its clocks record
        who has acted and since when (an untimed game is resigned, not aborted)."""
        if self.is_terminal(state):
            raise FailedPrecondition("the game is over: it cannot be aborted", reason="GAME_OVER")
        seat = command.seat
        if seat is None or not 0 <= seat < len(state.seats):
            raise InvalidArgument(f"seat {seat} does not exist", reason="INVALID_SEAT")
        clock = state.clock
        if clock is None:
            raise FailedPrecondition(
                "a game without clocks cannot be aborted (nothing records who has moved):"
                " resign instead",
                reason="NOT_ABORTABLE",
            )
        timing = self.timing
        unmoved = [  # a seat out of the game (ran out, forfeited) is waited for no more
            s
            for s, time in enumerate(clock.seats)
            if not time.acted and not (timing is not None and timing.out(state.game, s))
        ]
        if not unmoved:
            raise FailedPrecondition(
                "every seat has made its first move: the game has started and can no longer"
                " be aborted (resign instead)",
                reason="ABORT_TOO_LATE",
            )
        own = set(state.seats_of(state.seats[seat].player_id))
        others = [s for s in unmoved if s not in own]
        window = command.window
        if others and window is None:
            return self._aborted(state)
        running = {
            s: ran for s in others if (ran := _running_for(clock.seats[s].since, at)) is not None
        }
        if running and window is not None:
            laggard = max(running, key=lambda s: (running[s], -s))  # the nearest the window
            if running[laggard] >= window:
                return self._aborted(state)
            raise _not_yet(
                f"seat {laggard} has not made its first move, but its clock has run"
                f" {running[laggard]:.0f} of the {window:g} seconds",
                window - running[laggard],
                window,
            )
        mine = [s for s in unmoved if s in own]
        if not others or any(clock.seats[s].since is not None for s in mine):
            raise FailedPrecondition(
                "the game waits for your own first move: make it or resign (a game is"
                " aborted by the others of a seat that makes no first move in time)",
                reason="ABORT_OWN_FIRST_MOVE",
            )
        assert window is not None  # None: aborted above, or the caller's own first move
        raise _not_yet(
            f"seat {others[0]} has not made its first move, but its clock has not started",
            window,
            window,
        )

    def _berserk(self, state: Table[S], command: Berserk) -> SeatBerserked:
        """A seat's ``Berserk`` (an arena's, issue 43): half its clock, no increment, for
        one point more on a win (the tournament's to score). Only in a timed game whose
        ``SeatsTaken`` allows it (``BERSERK_NOT_ALLOWED``), once (``ALREADY_BERSERK``) and
        before the seat's first action (``BERSERK_TOO_LATE``: its clock records it)."""
        if self.is_terminal(state):
            raise FailedPrecondition("the game is over", reason="GAME_OVER")
        seat = command.seat
        if not 0 <= seat < len(state.seats):
            raise InvalidArgument(f"seat {seat} does not exist", reason="INVALID_SEAT")
        clock = state.clock
        if clock is None or not clock.berserk_allowed:
            raise FailedPrecondition(
                "berserk is allowed only in a timed game an arena that allows it paired",
                reason="BERSERK_NOT_ALLOWED",
            )
        time = clock.seats[seat]
        if time.berserk:
            raise FailedPrecondition("this seat went berserk already", reason="ALREADY_BERSERK")
        if time.acted:
            raise FailedPrecondition(
                "berserk is chosen before the seat's first move", reason="BERSERK_TOO_LATE"
            )
        return SeatBerserked(seat)


def _not_yet(why: str, left: float, window: float) -> FailedPrecondition:
    """``ABORT_NOT_YET``: when the abort may be asked again, and the window."""
    return FailedPrecondition(
        f"{why}: the game may be aborted once it has run {window:g} seconds without one;"
        f" try again in {math.ceil(left)} seconds",
        reason="ABORT_NOT_YET",
        metadata={"retry_after_seconds": f"{left:.3f}", "abort_window_seconds": f"{window:g}"},
    )


def _running_for(since: datetime | None, at: datetime | None) -> float | None:
    """Seconds a clock started at ``since`` has run at ``at`` (None: stopped, or unknown)."""
    if since is None or at is None:
        return None
    return max(0.0, (at - since).total_seconds())
