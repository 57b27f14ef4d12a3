"""Time controls: how a game is timed, as the platform's own value (``TimeControl``).

A time control is fixed when a game is created and recorded in its first events; the
protobuf form is ``parlor.common.v1.TimeControl``. Seconds are whole numbers, so equal
time controls compare equal (matchmaking matches only tickets with equal ones).

- ``none``: no clock, the game waits.
- ``per_move(30)``: every move within 30 s of the seat's turn starting.
- ``fischer(300, 3)``: a bank of 5 min per seat, 3 s added after each of its moves.
- ``correspondence(days=2)``: a per-move limit counted in days.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from parlor.common.v1 import common_pb2
from parlor.core.errors import InvalidArgument

MAX_INITIAL_SECONDS = 86_400
MAX_INCREMENT_SECONDS = 3_600
MAX_MOVE_SECONDS = 14 * 86_400
DAY = 86_400


class Kind(Enum):
    NONE = "none"
    PER_MOVE = "per_move"
    FISCHER = "fischer"
    CORRESPONDENCE = "correspondence"


_TO_PB = {
    Kind.NONE: common_pb2.TimeControl.KIND_NONE,
    Kind.PER_MOVE: common_pb2.TimeControl.KIND_PER_MOVE,
    Kind.FISCHER: common_pb2.TimeControl.KIND_FISCHER,
    Kind.CORRESPONDENCE: common_pb2.TimeControl.KIND_CORRESPONDENCE,
}
_FROM_PB = {v: k for k, v in _TO_PB.items()}


def _refuse(message: str) -> InvalidArgument:
    return InvalidArgument(message, reason="INVALID_TIME_CONTROL")


@dataclass(frozen=True, slots=True)
class TimeControl:
    kind: Kind = Kind.NONE
    initial_seconds: int = 0
    increment_seconds: int = 0
    move_seconds: int = 0

    def __post_init__(self) -> None:
        if self.kind is Kind.NONE:
            if self.initial_seconds or self.increment_seconds or self.move_seconds:
                raise _refuse("a game without a clock takes no times")
        elif self.kind is Kind.FISCHER:
            if not 1 <= self.initial_seconds <= MAX_INITIAL_SECONDS:
                raise _refuse(f"a game clock needs 1 to {MAX_INITIAL_SECONDS} initial seconds")
            if not 0 <= self.increment_seconds <= MAX_INCREMENT_SECONDS:
                raise _refuse(f"the increment must be 0 to {MAX_INCREMENT_SECONDS} seconds")
            if self.move_seconds:
                raise _refuse("a game clock takes no per-move limit")
        else:
            if not 1 <= self.move_seconds <= MAX_MOVE_SECONDS:
                raise _refuse(f"a move limit must be 1 to {MAX_MOVE_SECONDS} seconds")
            if self.initial_seconds or self.increment_seconds:
                raise _refuse("a per-move limit takes no initial time or increment")

    @classmethod
    def none(cls) -> TimeControl:
        return cls()

    @classmethod
    def per_move(cls, seconds: int) -> TimeControl:
        return cls(Kind.PER_MOVE, move_seconds=seconds)

    @classmethod
    def fischer(cls, initial_seconds: int, increment_seconds: int = 0) -> TimeControl:
        return cls(Kind.FISCHER, initial_seconds, increment_seconds)

    @classmethod
    def correspondence(cls, days: int) -> TimeControl:
        return cls(Kind.CORRESPONDENCE, move_seconds=days * DAY)

    @property
    def timed(self) -> bool:
        return self.kind is not Kind.NONE

    def label(self) -> str:
        """Short human form: "none", "30s/move", "5+3", "2d/move"."""
        if self.kind is Kind.NONE:
            return "none"
        if self.kind is Kind.FISCHER:
            minutes, seconds = divmod(self.initial_seconds, 60)
            base = f"{minutes}" if not seconds else f"{self.initial_seconds}s"
            return f"{base}+{self.increment_seconds}"
        if self.kind is Kind.CORRESPONDENCE and self.move_seconds % DAY == 0:
            return f"{self.move_seconds // DAY}d/move"
        return f"{self.move_seconds}s/move"

    def to_proto(self) -> common_pb2.TimeControl:
        return common_pb2.TimeControl(
            kind=_TO_PB[self.kind],
            initial_seconds=self.initial_seconds,
            increment_seconds=self.increment_seconds,
            move_seconds=self.move_seconds,
        )

    @classmethod
    def from_proto(
        cls, message: common_pb2.TimeControl, default: TimeControl | None = None
    ) -> TimeControl:
        """The value a request names; KIND_UNSPECIFIED is ``default`` (no clock if None)."""
        if message.kind == common_pb2.TimeControl.KIND_UNSPECIFIED:
            if message.initial_seconds or message.increment_seconds or message.move_seconds:
                raise _refuse("a time control with times needs a kind")
            return default if default is not None else cls()
        kind = _FROM_PB.get(message.kind)
        if kind is None:
            raise _refuse(f"unknown time control kind {message.kind}")
        return cls(kind, message.initial_seconds, message.increment_seconds, message.move_seconds)


UNTIMED = TimeControl()
"""No clock: the time control of every game stored before clocks, and of games against bots."""
