"""The game registry: every game declared once, found by name.

A game service declares its game in one module (``parlor.services.<game>.game``) as
one ``GameType``: its name, its rules with the seat range (``Seated``), its event codec,
what the relay may publish, its bots, its proto service, its rules page and how replay
tools rebuild commands. It registers that object under the entry-point group
``parlor.game_types``; matchmaking (game list, seat limits, bot names), scoring (game
list), ``parlor verify``, the secrets check and the deploy checks read ``games()``, so a
new game edits no other package.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from parlor.core.decider import Decider
from parlor.core.errors import InvalidArgument
from parlor.core.game import GameContract
from parlor.gamehost.codec import EventCodec
from parlor.gamehost.seating import OpenTable, SeatsTaken, Table
from parlor.gamehost.timecontrol import UNTIMED, TimeControl
from parlor.gamehost.verify import CommandOf, CreateOf

S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")

GROUP = "parlor.game_types"
Public = Callable[[str, bytes], bytes | None]
"""What the relay publishes of a stored payload (None: nothing), as ``outbox.Public``."""


@dataclass(frozen=True)
class GameType(Generic[S, C, E]):
    """One game, as every part of the platform needs to know it.

    ``decider`` is the seated rules (``Seated``: the engine, the seat range, standings);
    ``bots`` are the bot names matchmaking fills seats with, weakest first (one per
    matching level); ``default_time_control`` and ``time_controls`` are the time control a
    game gets when none is named and the ones offered to clients; ``public`` strips what
    the relay may not publish (None: the game hides nothing); ``service`` is the full
    name of its gRPC service; ``engine`` is its rules under the one game contract
    (``parlor.core.game.GameContract``), which the conformance test holds it to.
    """

    category: str
    decider: Decider[S, C, E]
    codec: EventCodec[E]
    command_of: CommandOf[S, E, C]
    create_of: CreateOf[E, C] | None = None
    bots: tuple[str, ...] = ()
    public: Public | None = None
    service: str = ""
    rules_page: str = ""
    default_time_control: TimeControl = TimeControl()
    """The time control a game gets when its creator names none (games with people)."""
    time_controls: tuple[TimeControl, ...] = ()
    """The time controls offered to clients (``accepted_time_controls``: what matchmaking takes)."""
    engine: GameContract[Any, Any, Any] | None = None
    """The rules under the game contract (``parlor.rules.<game>.contract.ENGINE``)."""

    @property
    def name(self) -> str:
        return self.category

    @property
    def min_seats(self) -> int:
        return int(getattr(self.decider, "min_seats", 1))

    @property
    def max_seats(self) -> int:
        return int(getattr(self.decider, "max_seats", 1))

    @property
    def timed(self) -> bool:
        """Whether the game has clocks: its rules say how time runs out (``Seated.timing``)."""
        return getattr(self.decider, "timing", None) is not None

    @property
    def accepted_time_controls(self) -> tuple[TimeControl, ...]:
        """The time controls a ticket or lobby may name: the offered ones, the default and
        none (no clock); a game without clocks only none."""
        if not self.timed:
            return (UNTIMED,)
        return tuple(dict.fromkeys((*self.time_controls, self.default_time_control, UNTIMED)))

    def accepted_time_control(self, control: TimeControl) -> TimeControl:
        """``control`` if the game accepts it, else INVALID_ARGUMENT INVALID_TIME_CONTROL
        naming the ones it does (message and metadata ``time_controls``)."""
        accepted = self.accepted_time_controls
        if control in accepted:
            return control
        labels = ", ".join(c.label() for c in accepted)
        why = "has no clocks" if not self.timed else "does not offer that time control"
        raise InvalidArgument(
            f"{self.name} {why} ({control.label()}); it takes: {labels}",
            reason="INVALID_TIME_CONTROL",
            metadata={"game_type": self.name, "time_controls": labels},
        )

    @property
    def hides(self) -> bool:
        """Whether anything of the game is kept from some viewers (racks, hands, bags)."""
        return self.public is not None


def on_table(command_of: Callable[[S, object], C | None]) -> CommandOf[Table[S], Any, C]:
    """A game's ``command_of`` for replay tools, from its rules' (``parlor.rules.<game>.replay``),
    which know the game's state and not the table of seats around it."""

    def command(table: Table[S], event: object) -> C | None:
        return command_of(table.game, event)

    return command


def opened(create_of: Callable[[object], C]) -> CreateOf[Any, OpenTable[C]]:
    """A game's ``create_of`` for replay tools, from its rules' (the create command of its
    ``GameCreated``): the seats, time control and match as ``SeatsTaken`` recorded them."""

    def create(events: Sequence[object]) -> OpenTable[C]:
        seats = events[0]
        if not isinstance(seats, SeatsTaken):
            raise ValueError("a game's stream starts with SeatsTaken")
        return OpenTable(seats.seats, create_of(events[1]), seats.time_control, seats.matched)

    return create


def _load(ep: Any) -> GameType[Any, Any, Any]:
    found = ep.load()
    return found if isinstance(found, GameType) else found()  # a factory, as before


def game_types() -> dict[str, Callable[[], GameType[Any, Any, Any]]]:
    """Installed game types by name; nothing is imported until asked."""
    from importlib.metadata import entry_points

    def loader(ep: Any) -> Callable[[], GameType[Any, Any, Any]]:
        return lambda: _load(ep)

    return {ep.name: loader(ep) for ep in entry_points(group=GROUP)}


def games() -> dict[str, GameType[Any, Any, Any]]:
    """Every installed game, by name, in name order."""
    return {name: load() for name, load in sorted(game_types().items())}
