"""The game registry: every game declared once, found by name.

A game service declares its game in one module (``parlor.services.<game>.game``) as
one ``GameType``: its engine (which names it and gives its seat range), the standings and
clocks its rules add, its event codec, what the relay may publish, its bots, its proto,
its rules page and how replay tools rebuild commands. It registers that object under the
entry-point group ``parlor.game_types``; ``parlor verify``, the secrets check and the deploy
checks read ``games()``, and the services beside the runtime (matchmaking: game list, seat
limits, bot names; scoring, chat, tournaments) read the same registry through
``parlor.gametypes.catalogue``, which a ``GameType`` answers, so a new game edits no other
package.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from types import ModuleType
from typing import Any, Generic, Protocol, TypeVar, cast

from google.protobuf.message import Message

from parlor.core.errors import InvalidArgument
from parlor.core.game import GameContract
from parlor.eventstore import EventStore
from parlor.gamehost.host.gamerecord import GameRecord
from parlor.gamehost.pipeline.turns import Hosting
from parlor.gamehost.record.chance import Chance
from parlor.gamehost.table.clocks import Timing
from parlor.gamehost.table.codec import EventCodec
from parlor.gamehost.table.seating import OpenTable, Seated, SeatsTaken, Standings, Table
from parlor.gamehost.verify.verify import CommandOf, CreateOf
from parlor.gamehost.words.words import WordChecks
from parlor.gametypes.catalogue import GROUP, GameStates, registered
from parlor.gametypes.timecontrol import UNTIMED, TimeControl

S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")

Notation = Callable[[Sequence[Any]], str | Sequence[str]]
"""A game's record in its notation, from its own events (``GameType.notation``)."""
Public = Callable[[str, bytes], tuple[str, bytes] | None]
"""What the relay publishes of a stored event: the (type, payload) anyone may see during play
(None: nothing), as ``outbox.Public``."""


class Replays(Protocol):
    """How replay tools rebuild a game's commands (``parlor.rules.<game>.replay``)."""

    def command_of(self, game: Any, event: object) -> Any:
        """The command that made ``event`` in ``game`` (None: no command made it)."""
        ...

    def create_of(self, created: object) -> Any:
        """The create command of a game's ``GameCreated``."""
        ...


@dataclass(frozen=True)
class GameType(Generic[S, C, E]):
    """One game, as every part of the platform needs to know it, each thing said once.

    ``engine`` is its rules under the one game contract (``parlor.core.game.GameContract``,
    which the conformance test holds it to): it gives the name and the seat range.
    ``standings`` and ``timing`` are what the platform asks of the rules beyond it (the
    standings ``GameFinished`` carries, whose clock runs); ``replay`` how replay tools
    rebuild commands; ``proto`` the game's ``_pb2`` module, whose one service is the
    game's; ``bots`` the bot names matchmaking fills seats with, weakest first (one per
    matching level); ``default_time_control`` and ``time_controls`` the time control a
    game gets when none is named and the ones offered to clients; ``public`` gives the type
    and payload the relay may publish of an event, what anyone may see of it during play
    (None: the game hides nothing); ``departures`` the messages of the events by which a
    seat leaves a game the others play on (resigning in a game of three, leaving a race),
    each with a ``seat`` field: the game then no longer counts among that player's open
    games (``parlor.directory.projection``).
    """

    engine: GameContract[Any, Any, Any]
    codec: EventCodec[E]
    standings: Standings[Any]
    replay: Replays
    timing: Timing[Any] | None = None
    proto: ModuleType | None = None
    bots: tuple[str, ...] = ()
    public: Public | None = None
    rules_page: str = ""
    default_time_control: TimeControl = TimeControl()
    """The time control a game gets when its creator names none (games with people)."""
    time_controls: tuple[TimeControl, ...] = ()
    """The time controls offered to clients (``accepted_time_controls``: what matchmaking takes)."""
    calls: tuple[str, ...] = ()
    """The platform's services the game's service calls, with a token signed by a key of its
    own (the word games call ``"dictionary"``, the component's name): ``parlor-keys`` makes
    that key, whose JWK may sign tokens for these services only (``aud``), and the
    deployment gives it the key's Secret (``parlor.devinfra.gameservices``)."""
    departures: tuple[type[Message], ...] = ()
    notation: Notation | None = None
    """A game's record in its notation, from its own events in order (the platform's, seats
    and finish, left out): one text or its lines (``ExportGame``, after the seat tags); the
    rules' function (``c4.record``, ``record.export_game``). None: the servicer says it."""
    chance: Chance | None = None
    """The game's chance steps, as its rules declare them (``parlor.rules.<game>.contract``):
    the step that follows a state (Take Four's next deal), which the pipeline draws for and
    makes under its system id (``parlor.gamehost.record.chance``); None: the game draws nothing
    after its create."""

    hosting: Hosting | None = None
    """The game as the platform hosts it (``parlor.rules.<game>.hosting.GAME``,
    ``turns.Hosting``): its create, its opening chance step and its bots."""
    config_of: Callable[[Any], Any] | None = None
    """A request's ``Config`` message as the rules' config (the game's codec's)."""
    create_attempts: int = 1
    create_retry_reasons: frozenset[str] = frozenset()
    """Refusals of a create that a new draw of its opening may avoid (Upwords' first-player
    draw run out), up to ``create_attempts`` creates (``opener.Opener.open``)."""
    words: WordChecks[Any, Any] | None = None
    """The words a command is decided by and how it takes the dictionary's verdicts on them
    (a word game's rules' ``WordChecks``, with ``calls=("dictionary",)``): its servicer,
    given a dictionary, asks about them in one batch inside the command
    (``words.WordAnswers``), and a new game records its lexicon's id."""
    simultaneous: bool = False
    """Seats act at once (Take Four): a move's reply leaves out others' events between its
    own and its follow-up's, and bots are played by a runner (``botrunner``), not the
    pipeline."""

    @property
    def category(self) -> str:
        return self.engine.name

    @property
    def name(self) -> str:
        return self.engine.name

    @property
    def min_seats(self) -> int:
        return self.engine.min_seats

    @property
    def max_seats(self) -> int:
        return self.engine.max_seats

    def rules(self) -> Seated[Any, Any, Any]:
        """The seated rules (``Seated``): the engine, the seat range, standings and clocks."""
        return Seated(
            self.engine.decider, self.min_seats, self.max_seats, self.standings, self.timing
        )

    @cached_property
    def decider(self) -> Seated[S, C, E]:
        """The rules the game host decides with (``rules()``, made once)."""
        return self.rules()

    @cached_property
    def command_of(self) -> CommandOf[S, E, C]:
        """The rules' ``command_of`` on the table of seats (for ``parlor verify``)."""
        return cast(CommandOf[S, E, C], on_table(self.replay.command_of))

    @cached_property
    def create_of(self) -> CreateOf[E, C]:
        """The create command of a stream's first events (``SeatsTaken``, ``GameCreated``)."""
        return cast(CreateOf[E, C], opened(self.replay.create_of))

    def create(
        self, config: Message | None, players: tuple[str, ...], bots: tuple[bool, ...]
    ) -> Any:
        """The engine's create command (``Hosting.create``) of a request's ``config`` (None:
        the defaults), before its opening is drawn (``opening``)."""
        if self.hosting is None:
            raise NotImplementedError(f"{self.name} declares no hosting")
        chosen = None if config is None or self.config_of is None else self.config_of(config)
        return self.hosting.create(chosen, players, bots)

    @property
    def service(self) -> str:
        """The full name of the game's gRPC service (the one its proto file declares)."""
        if self.proto is None:
            return ""
        (service,) = self.proto.DESCRIPTOR.services_by_name.values()
        return str(service.full_name)

    @property
    def timed(self) -> bool:
        """Whether the game has clocks: its rules say how time runs out (``Seated.timing``)."""
        return self.timing is not None

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

    def states(self, store: EventStore) -> GameStates:
        """The game's states read from ``store`` and folded by its rules (a ``GameRecord``,
        its cache kept): what a service beside the runtime reads a game with."""
        return GameRecord(self.category, self.decider, self.codec, store)

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
    ``GameCreated``): the seats, time control, match and berserk as ``SeatsTaken`` recorded
    them."""

    def create(events: Sequence[object]) -> OpenTable[C]:
        seats = events[0]
        if not isinstance(seats, SeatsTaken):
            raise ValueError("a game's stream starts with SeatsTaken")
        return OpenTable(
            seats.seats,
            create_of(events[1]),
            seats.time_control,
            seats.matched,
            seats.berserk_allowed,
        )

    return create


def checked(found: object) -> GameType[Any, Any, Any]:
    """A registered game type, or TypeError naming what was registered instead."""
    if not isinstance(found, GameType):
        raise TypeError(f"{GROUP} names {found!r}, not a GameType")
    return found


def game_types() -> dict[str, Callable[[], GameType[Any, Any, Any]]]:
    """Installed game types by name (``catalogue.registered``); nothing is imported until
    asked."""

    def typed(load: Callable[[], object]) -> Callable[[], GameType[Any, Any, Any]]:
        return lambda: checked(load())

    return {name: typed(load) for name, load in registered().items()}


def games() -> dict[str, GameType[Any, Any, Any]]:
    """Every installed game, by name, in name order."""
    return {name: load() for name, load in sorted(game_types().items())}
