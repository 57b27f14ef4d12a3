"""The game contract: the same names for what every rule engine offers.

Each rules package keeps its own engine and exposes it through one small module,
``parlor.rules.<game>.contract``, whose ``ENGINE`` satisfies ``GameContract``: the decider,
the ``State``, ``Command``, ``Event`` and ``Config`` types, the seat range, and the
questions every game answers the same way (``view``, ``public_event``, ``result``,
``legal_moves``, ``to_move``, ``is_terminal``). ``parlor.core.conformance.check_contract``
and the conformance test hold every registered game to it.

Secret fields (racks, hands, the bag) are marked one way, ``Annotated[T, Secret]`` on the
event's field; ``secret_fields`` names them, and ``public_event`` is where they are stripped.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from parlor.core.decider import Decider
from parlor.core.errors import InvalidArgument

S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")

Viewer = int | None
"""A seat, or None for someone with no seat (a spectator, the public relay)."""


def rules_for_new_game(requested: int, current: int) -> int:
    """The rules version a new game asking for ``requested`` (0: the current one) is played
    by. A game whose rules have versions may ask only for the current one: older readings
    exist to replay the games decided by them (``UNSUPPORTED_RULES_VERSION``)."""
    if requested not in (0, current):
        raise InvalidArgument(
            f"new games are played by rules version {current} (or leave it 0);"
            " older versions only replay the games recorded with them",
            reason="UNSUPPORTED_RULES_VERSION",
        )
    return current


class Secret:
    """Annotation marker (``Annotated[T, Secret]``): the field is private to a seat, or to all."""


_SECRETS: dict[type, frozenset[str]] = {}


def secret_fields(event_type: type) -> frozenset[str]:
    """The names of a dataclass's fields annotated ``Secret`` (read once per class)."""
    found = _SECRETS.get(event_type)
    if found is None:
        hints = typing.get_type_hints(event_type, include_extras=True)
        found = _SECRETS[event_type] = frozenset(
            f.name
            for f in dataclasses.fields(event_type)
            if Secret in getattr(hints[f.name], "__metadata__", ())
        )
    return found


@dataclass(frozen=True)
class Result:
    """How a game ended, in one shape for every game.

    ``winners`` are the seats that won (several share a win; none for a draw); ``scores``
    are the seats' final points where the game keeps score (empty where it does not).
    """

    reason: str
    winners: tuple[int, ...]
    scores: tuple[int, ...] = ()


RESIGNED = "RESIGNED"
"""Why a seat left a game before its end (``Standing.departure``): it resigned,"""
TIMED_OUT = "TIMED_OUT"
"""it ran out of time,"""
FORFEITED = "FORFEITED"
"""it forfeited on time (Take Four: idle past the second limit),"""
LEFT = "LEFT"
"""it left (Take Four's ``Forfeit``: leaving the table),"""
ABORTED = "ABORTED"
"""or the game was aborted (a matched game a seat did not start in time): every seat."""
DEPARTURES = (RESIGNED, TIMED_OUT, FORFEITED, LEFT, ABORTED)


def departed(why: str) -> dict[str, str]:
    """The ErrorInfo metadata of a refusal of a seat that left: ``{"departure": why}``, so a
    client tells a resignation from a timeout whatever the game names its reason."""
    return {"departure": why}


@dataclass(frozen=True, slots=True)
class Standing:
    """How one seat finished: rank 1 wins (equal ranks share a place); score if the game has one.

    A game's ``standings(state)`` gives every seat's, with the reason the game ended; the
    game host puts them in the ``GameFinished`` that scoring consumes.
    """

    rank: int
    score: int = 0
    timed_out: bool = False
    """The seat ran out of time (scoring rates it as the loss it is)."""
    departure: str = dataclasses.field(default="", compare=False)
    """Why the seat left before the end (one of ``DEPARTURES``); "" for a seat that played on.
    Not compared: ``GameFinished`` events stored before departures were recorded have none,
    and the rules deciding them again (``parlor verify``) name them; the rank says the rest."""


@runtime_checkable
class GameContract(Protocol[S, C, E]):
    """What every rule engine offers, under the same names (one ``ENGINE`` per game)."""

    # Read-only members: an engine gives them as plain class attributes.
    @property
    def name(self) -> str:
        """The game's name on the platform (its registry key)."""
        ...

    @property
    def decider(self) -> Decider[S, C, E]: ...

    @property
    def State(self) -> type[S]: ...

    @property
    def Command(self) -> Any:
        """The union of the game's command classes (``isinstance`` accepts it)."""
        ...

    @property
    def Event(self) -> Any:
        """The union of the game's event classes."""
        ...

    @property
    def Config(self) -> type:
        """A game's settings, as its create command carries them."""
        ...

    @property
    def min_seats(self) -> int: ...

    @property
    def max_seats(self) -> int: ...

    def view(self, state: S, viewer: Viewer) -> object:
        """What ``viewer`` may see of the game (the one place a state is stripped)."""
        ...

    def public_event(self, event: E, viewer: Viewer) -> object:
        """What ``viewer`` may see of one event: every ``Secret`` field not theirs removed."""
        ...

    def result(self, state: S) -> Result | None:
        """How the game ended, or None while it goes on."""
        ...

    def legal_moves(self, state: S, seat: int) -> Sequence[C]:
        """Commands ``seat`` may give now (a finite sample where moves are countless)."""
        ...

    def to_move(self, state: S) -> tuple[int, ...]:
        """The seats the game waits for now (several at once in simultaneous play)."""
        ...

    def is_terminal(self, state: S) -> bool: ...


def problems(engine: object) -> list[str]:
    """What ``engine`` lacks of the contract, in words (empty: it conforms)."""
    found: list[str] = []
    for name in ("name", "decider", "State", "Command", "Event", "Config"):
        if not hasattr(engine, name):
            found.append(f"no {name}")
    for name in ("view", "public_event", "result", "legal_moves", "to_move", "is_terminal"):
        if not callable(getattr(engine, name, None)):
            found.append(f"no {name}()")
    low, high = getattr(engine, "min_seats", None), getattr(engine, "max_seats", None)
    if not (isinstance(low, int) and isinstance(high, int) and 1 <= low <= high):
        found.append(f"seat range {low!r}..{high!r} is not 1 <= min <= max")
    decider = getattr(engine, "decider", None)
    for name in ("initial_state", "decide", "evolve", "is_terminal"):
        if not callable(getattr(decider, name, None)):
            found.append(f"decider has no {name}()")
    return found


@dataclass(frozen=True)
class TurnTiming(Generic[S, C]):
    """The clocks of a game of turns (``parlor.gamehost.table.clocks.Timing``): the clocks of the
    seats the game waits for (its contract's ``to_move``) run, one allowance each; a seat
    that runs out gets the game's own timeout command, and ``out`` says who has."""

    engine: GameContract[S, Any, Any]
    timeout_of: Callable[[int], C]
    """seat -> the engine's command for that seat running out of time."""
    is_out: Callable[[S, int], bool]
    """(state, seat) -> whether the seat has run out of time."""
    idle: bool = False

    def running(self, game: S) -> tuple[int, ...]:
        return self.engine.to_move(game)

    def timeout(self, game: S, seat: int) -> C:
        return self.timeout_of(seat)

    def timeout_seat(self, command: object) -> int | None:
        seat = getattr(command, "seat", None)
        if isinstance(seat, int) and command == self.timeout_of(seat):
            return seat
        return None

    def factor(self, game: S, seat: int) -> int:
        return 1

    def out(self, game: S, seat: int) -> bool:
        return self.is_out(game, seat)
