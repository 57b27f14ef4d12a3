"""The catalogue of games: every installed game type by name, as the services beside the
game runtime see it.

A game is declared once, as its service's ``GameType`` (``parlor.gamehost.pipeline.games``),
registered under the entry-point group ``parlor.game_types``. Matchmaking (the game list,
seat limits, time controls, bot names, a challenge's config), scoring, chat and tournaments
read the registry through ``catalogue()`` and know a game by ``CataloguedGame``: what the
runtime's ``GameType`` gives them, without importing the runtime. A game's state, where a
service needs it (matchmaking's turn notices), is read through ``CataloguedGame.states``:
the game's own stream folded by its own rules.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import ModuleType
from typing import Any, Protocol, cast

from google.protobuf.message import Message

from parlor.eventstore import EventStore
from parlor.gametypes.timecontrol import TimeControl

GROUP = "parlor.game_types"
"""The entry-point group every game type is registered under."""


class GameStates(Protocol):
    """A game's state read from its stream and folded by its rules (``GameRecord.load``)."""

    async def load(self, game_id: str, version: int | None = None) -> tuple[Any, int]:
        """The table of a game now (or at ``version``) and its version."""
        ...


class CataloguedGame(Protocol):
    """A game type as a service beside the runtime knows it (``GameType`` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def category(self) -> str:
        """The game's stream category (``<category>-<game id>``)."""
        ...

    @property
    def min_seats(self) -> int: ...

    @property
    def max_seats(self) -> int: ...

    @property
    def bots(self) -> tuple[str, ...]:
        """The bot names matchmaking fills seats with, weakest first."""
        ...

    @property
    def engine(self) -> Any:
        """The game's rules under the one game contract (``parlor.core.game``)."""
        ...

    @property
    def decider(self) -> Any:
        """The seated rules: the table of seats and clocks around the engine."""
        ...

    @property
    def proto(self) -> ModuleType | None: ...

    @property
    def service(self) -> str:
        """The full name of the game's gRPC service."""
        ...

    @property
    def rules_page(self) -> str: ...

    @property
    def hides(self) -> bool:
        """Whether anything of the game is kept from some viewers."""
        ...

    @property
    def timed(self) -> bool: ...

    @property
    def default_time_control(self) -> TimeControl: ...

    @property
    def time_controls(self) -> tuple[TimeControl, ...]: ...

    @property
    def accepted_time_controls(self) -> tuple[TimeControl, ...]: ...

    @property
    def departures(self) -> tuple[type[Message], ...]:
        """The events by which a seat leaves a game the others play on."""
        ...

    @property
    def config_of(self) -> Callable[[Any], Any] | None: ...

    @property
    def hosting(self) -> Any: ...

    def accepted_time_control(self, control: TimeControl) -> TimeControl: ...

    def create(
        self, config: Message | None, players: tuple[str, ...], bots: tuple[bool, ...]
    ) -> Any:
        """The engine's create command of a request's config (None: the defaults)."""
        ...

    def states(self, store: EventStore) -> GameStates:
        """The game's states read from ``store`` (one reader, its cache kept)."""
        ...


def loaded(found: object) -> object:
    """What an entry point names: a game type, or a factory (a function or class) making one."""
    return found() if inspect.isfunction(found) or inspect.isclass(found) else found


def registered() -> dict[str, Callable[[], object]]:
    """Installed game types by name, each loaded when asked; nothing is imported before."""
    from importlib.metadata import entry_points

    def loader(ep: Any) -> Callable[[], object]:
        return lambda: loaded(ep.load())

    return {ep.name: loader(ep) for ep in entry_points(group=GROUP)}


def catalogue() -> dict[str, CataloguedGame]:
    """Every installed game, by name, in name order."""
    return {name: cast(CataloguedGame, load()) for name, load in sorted(registered().items())}
