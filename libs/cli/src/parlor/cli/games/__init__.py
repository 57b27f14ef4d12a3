"""One adapter per game type: how to call its service, draw its board and read its moves.

To plug a game in, write a class following ``GameAdapter`` (in any package) and register
it under the ``parlor.cli_games`` entry points, named by its game type; libs/cli registers
Connect 4x4, Upwords and Take Four's so, in its ``pyproject.toml``. ``adapters()`` reads
them: nothing here names a game.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # not imported to run: `parlor --help` loads no adapter, no gRPC
    from rich.console import RenderableType

    from parlor.client import GameClient, ParlorClient


class GameAdapter(Protocol):
    """What the CLI needs of one game type; game and event messages stay opaque to it."""

    name: str
    move_help: str
    default_opponent: str
    """Who `parlor play` seats against you when no --vs is given (a bot of this game)."""
    live: bool
    """Simultaneous play: `parlor play` redraws the game as events arrive."""

    def __init__(self, api: GameClient[Any]) -> None: ...

    # calls (through parlor-client: retried when safe, errors as parlor.client.ParlorError)
    async def create(self, me: str, opponents: list[str], name: str) -> Any: ...
    async def get(self, game_id: str, version: int = 0) -> Any: ...
    async def play(self, game: Any, move: str, command_id: str) -> tuple[Any, list[Any]]:
        """The game after the move, and the events it appended (bots' replies included).

        ``game`` is the game as the player last saw it (its id, and its round where that
        matters: a Take Four command names the round it was typed for).
        """
        ...

    def resign(self, game_id: str, command_id: str) -> Awaitable[Any]: ...
    async def history(self, game_id: str) -> list[Any]: ...
    def watch(
        self, game_id: str, after_version: int = 0
    ) -> AsyncGenerator[tuple[Any, Any], None]: ...
    def replay(self, game_id: str, pace_ms: int) -> AsyncGenerator[tuple[Any, Any], None]: ...
    async def list_games(
        self, player_id: str, finished_only: bool, limit: int, in_progress_only: bool = False
    ) -> list[Any]:
        """``in_progress_only`` is passed only when set (an adapter written before it works
        as it did for everything else)."""
        ...

    # reading a game
    def game_id(self, game: Any) -> str: ...
    def version(self, game: Any) -> int: ...
    def is_over(self, game: Any) -> bool: ...
    def to_move(self, game: Any) -> str | None: ...
    def draw(self, game: Any, me: str | None) -> RenderableType: ...
    def outcome(self, game: Any) -> str: ...

    # events
    def event_version(self, event: Any) -> int: ...
    def event_dict(self, event: Any) -> dict[str, Any]: ...
    def event_text(self, event: Any, seats: list[str]) -> str: ...
    def transcript(self, events: list[Any]) -> str: ...


GROUP = "parlor.cli_games"


def adapter_names() -> list[str]:
    """The installed adapters' game types, sorted, without loading any (for help texts)."""
    from importlib.metadata import entry_points

    return sorted(ep.name for ep in entry_points(group=GROUP))


def adapters() -> dict[str, Callable[[GameClient[Any]], GameAdapter]]:
    """Every installed adapter (``parlor.cli_games`` entry points), by game type."""
    from importlib.metadata import entry_points

    return {ep.name: ep.load() for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name)}


def adapter(game_type: str, client: ParlorClient) -> GameAdapter:
    known = adapters()
    if game_type not in known:
        raise KeyError(f"unknown game type {game_type!r}; known: {', '.join(sorted(known))}")
    return known[game_type](client.game(game_type))
