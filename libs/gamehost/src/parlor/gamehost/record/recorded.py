"""What a game's record is made of: an event as recorded, what a command did (``Outcome``),
the versions that number a game's events and the ids that name games and commands.

A client's id is checked to the client alphabet (letters, digits, ``-`` and ``_``); the
platform's own command ids (``SystemCommandId``: ``parlor:<kind>-<n>``) hold a ``:``, so no
client can send, and squat, one. ``parlor.gamehost.host.host`` gives every name here too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from parlor.core.errors import FailedPrecondition, InvalidArgument
from parlor.eventstore import RecordedEvent
from parlor.gamehost.table.clocks import Preempted
from parlor.gamehost.table.seating import Table

S = TypeVar("S", bound=Table[Any])
E = TypeVar("E")

MAX_VERSION = 2**62  # far beyond any game; keeps client numbers inside PostgreSQL's bigint
READ_PAGE = 256
"""Events a long read takes from the store at a time."""
FOLD_SLICE = 32
"""Events a long read folds between yields to the event loop (some milliseconds at most)."""


def check_version(value: int, what: str = "version") -> int:
    if not 0 <= value <= MAX_VERSION:
        raise InvalidArgument(
            f"{what} must be between 0 and {MAX_VERSION}", reason="INVALID_VERSION"
        )
    return value


@dataclass(frozen=True)
class Recorded(Generic[E]):
    """A stored event with its domain form."""

    record: RecordedEvent
    event: E
    before: Any = field(default=None, compare=False, repr=False)
    """The game's state before the event, where the host had it at hand: in a command's
    ``Outcome.records`` and from ``GameHost.recorded`` (None in ``history``)."""
    after: Any = field(default=None, compare=False, repr=False)
    """The game's state after the event, where the command that appended it had it at hand
    (``Outcome.records``, and so the bells' tail): a watcher of this replica takes it instead
    of folding the event again (``GameHost.folded``); None elsewhere."""

    @property
    def version(self) -> int:
        return self.record.version


@dataclass(frozen=True)
class Outcome(Generic[S, E]):
    """What a command did: the state after it, its version, and the events it appended."""

    state: S
    version: int
    events: tuple[E, ...]
    duplicate: bool = False
    records: tuple[Recorded[E], ...] = ()
    """The appended events as stored (versions, positions, times), each with the state before
    it, when known without a read: a reply's events come from here (``GameHost.recorded``).
    After ``Pipeline.after`` it holds the bots' moves too."""


class Overtaken(FailedPrecondition):
    """A command the timeouts due before it overtook (``Preempted``), refused and nothing
    appended: ``events`` (the timeouts) and ``states`` (the table after each) follow
    ``state`` at ``version``, decided at ``at``. The pipeline appends them as the platform's
    own command (``GameHost.append_timeouts``) and then refuses the command with ``reason``:
    ``TIMED_OUT`` (its seat ran out) or ``GAME_OVER`` (the others' timeouts ended the game)."""

    def __init__(self, late: Preempted, state: Any, version: int, at: datetime) -> None:
        super().__init__(str(late), reason=late.reason)
        self.events = late.events
        self.states = late.states
        self.state = state
        self.version = version
        self.at = at
