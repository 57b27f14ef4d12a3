"""The table of a game: who sits where (``Seat``, a seat's kind: a person, Parlor's own bot
``bot:<level>``, a bot account), the table around the rules' state (``Table``) and the
platform's own events in a game's stream (``SeatsTaken``, ``SeatBerserked``,
``GameFinished``); ``seating.Seated`` decides and folds them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from parlor.core.errors import InvalidArgument, PermissionDenied
from parlor.core.game import Standing
from parlor.gamehost.table.clocks import Clock
from parlor.gametypes.seats import Seat
from parlor.gametypes.timecontrol import TimeControl

S = TypeVar("S")
C = TypeVar("C")


@dataclass(frozen=True, slots=True)
class SeatsTaken:
    """The first event of every game: seat i is ``seats[i]``; how the game is timed,
    whether matchmaking formed it (a matched game nobody starts is aborted), and whether a
    seat may go berserk (an arena's pairing that allows it: ``Berserk``)."""

    seats: tuple[Seat, ...]
    time_control: TimeControl = TimeControl()
    matched: bool = False
    berserk_allowed: bool = False


@dataclass(frozen=True, slots=True)
class SeatBerserked:
    """A seat went berserk before its first action: its clock is half its allowance and
    earns no increment (``clocks.berserked``); a tournament scores it from this event."""

    seat: int


@dataclass(frozen=True, slots=True)
class GameFinished:
    """The last event of every game, the same for all game types: what scoring consumes."""

    reason: str
    standings: tuple[Standing, ...]


@dataclass(frozen=True, slots=True)
class OpenTable(Generic[C]):
    """Create a game: the seats and the engine's own create command."""

    seats: tuple[Seat, ...]
    create: C
    time_control: TimeControl = TimeControl()
    matched: bool = False
    berserk_allowed: bool = False


@dataclass(frozen=True, slots=True)
class Table(Generic[S]):
    seats: tuple[Seat, ...]
    game: S
    clock: Clock | None = None
    """The seats' clocks (None: an untimed game, as every game stored before clocks)."""
    aborted: bool = False

    def seats_of(self, player_id: str) -> tuple[int, ...]:
        return tuple(i for i, seat in enumerate(self.seats) if seat.player_id == player_id)

    def seat_of(self, player_id: str, requested: int | None = None) -> int:
        """The seat a caller acts for: theirs, or the requested one if it is theirs."""
        mine = self.seats_of(player_id)
        if requested is not None:
            if not 0 <= requested < len(self.seats):
                raise InvalidArgument(
                    f"seat {requested} does not exist (seats 0 to {len(self.seats) - 1})",
                    reason="INVALID_SEAT",
                )
            if requested not in mine:
                raise PermissionDenied(f"seat {requested} is not yours", reason="NOT_YOUR_SEAT")
            return requested
        if not mine:
            raise PermissionDenied("you have no seat in this game", reason="NOT_SEATED")
        if len(mine) > 1:
            raise InvalidArgument(
                "you hold several seats in this game; say which", reason="SEAT_REQUIRED"
            )
        return mine[0]


Standings = Callable[[S], tuple[str, tuple[Standing, ...]]]
TableEvent = SeatsTaken | GameFinished | SeatBerserked
TABLE_EVENTS = (SeatsTaken, GameFinished, SeatBerserked)
"""The platform's own events in a game's stream (none is a seat's move)."""
