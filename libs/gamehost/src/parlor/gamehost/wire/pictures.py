"""What a viewer is shown of a game: its ``Game`` picture at a version and its events.

Who sees what is decided here, once, for every game: during play, a player sees their own
seat's view and a spectator the public one (the engine's ``view`` and ``public_event``);
after the end, everyone sees everything (``replay.entitlement`` says which applies). The
pictures themselves are the game's wire's (``Wire.game``, ``Wire.event``); each version's
``Game`` is built once per viewer and shared by every reply and watcher (``ViewCache``),
with the clocks in it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any, Generic, TypeVar, cast

from google.protobuf.message import Message

from parlor.common.v1 import common_pb2
from parlor.gamehost.host.host import GameHost, Outcome, Recorded
from parlor.gamehost.pipeline.games import GameType
from parlor.gamehost.table.clocks import set_clocks
from parlor.gamehost.table.codec import event_info
from parlor.gamehost.table.seating import TABLE_EVENTS, Table
from parlor.gamehost.wire.aborts import show_aborted
from parlor.gamehost.wire.views import ViewCache
from parlor.gamehost.wire.wire import Wire

T = TypeVar("T", bound=Table[Any])
E = TypeVar("E")


class Pictures(Generic[T, E]):
    """A game's pictures as each viewer may see them, from its value and its wire."""

    def __init__(self, host: GameHost[T, Any, E], game: GameType[Any, Any, Any], wire: Wire[T, E]):
        self.host, self.game, self.wire = host, game, wire
        self.view_cache = wire.view_cache
        """Keep each version's ``Game`` per viewer (False: built per call; a test switches
        it off in a live service to draw each picture from the state its watcher holds)."""
        self._views: ViewCache[Message] = ViewCache()

    def over(self, table: T) -> bool:
        """Whether the game is over (then everything is shown to everyone)."""
        return self.host.decider.is_terminal(table)

    def clocks(self, table: T, as_of: Any = None) -> common_pb2.Clocks:
        """The game's clocks (``Seated.clocks``): as of its last event, or ``as_of``."""
        return self.host.decider.clocks(table, as_of)

    def game_message(
        self, game_id: str, version: int, table: T, viewer: int | None, everything: bool
    ) -> Message:
        """The game at ``version`` as ``viewer`` sees it (``everything``: the game is over),
        clocks in, built once per version and viewer for every reply and watcher. A game
        that hides nothing shows every viewer the same picture (built for viewer None)."""
        if not self.game.hides:
            viewer, everything = None, False

        def build() -> Message:
            game = self.wire.game(game_id, version, table, viewer, everything)
            if table.aborted:
                show_aborted(game)
            return set_clocks(game, self.clocks(table))

        if not self.view_cache:
            return build()
        return self._views.get(game_id, version, viewer, everything, build)

    def shown(self, event: E, viewer: int | None) -> E:
        """What ``viewer`` may see of ``event`` during play: the engine's ``public_event``
        (the platform's own events, seats and finish, are everyone's)."""
        if isinstance(event, TABLE_EVENTS):
            return event
        return cast(E, self.game.engine.public_event(event, viewer))

    def event_message(
        self, recorded: Recorded[E], before: T, viewer: int | None, everything: bool
    ) -> Message:
        """One ``GameEvent`` as ``viewer`` may see it (the event whole once ``everything``
        is shown); ``before`` is the game before it (in a move's reply, as the host's
        records hold it: ``Recorded.before``); a wire that redacts its own events
        (``Wire.seen_event``) is given the event whole."""
        if self.wire.seen_event is not None:
            return self.wire.seen_event(recorded.event, event_info(recorded), viewer, everything)
        assert self.wire.event is not None
        event = recorded.event if everything else self.shown(recorded.event, viewer)
        return self.wire.event(event, event_info(recorded), before)

    def events(
        self, records: Sequence[Recorded[E]], viewer: int | None, everything: bool
    ) -> list[Message]:
        """A reply's events as ``viewer`` sees them, each with the game before it as the
        command's fold left it (``Recorded.before``): no read, and no fold again."""
        return [self.event_message(r, r.before, viewer, everything) for r in records]

    def reply(
        self,
        game_id: str,
        outcome: Outcome[T, E],
        records: Sequence[Recorded[E]],
        viewer: int | None,
    ) -> dict[str, Any]:
        """A command's reply (``game``, ``events``): the game after it and its events, as
        ``viewer`` sees them (everything, once the game is over)."""
        state, over = outcome.state, self.over(outcome.state)
        return {
            "game": self.game_message(game_id, outcome.version, state, viewer, over),
            "events": self.events(records, viewer, over),
        }

    async def events_read(
        self, game_id: str, first: int, last: int, viewer: int | None, everything: bool
    ) -> list[Message]:
        """Events ``first..last`` read from the store as ``viewer`` sees them."""
        if last < first:
            return []
        out: list[Message] = []
        async with contextlib.aclosing(self.host.replayed(game_id, first, last)) as records:
            async for recorded in records:
                out.append(self.event_message(recorded, recorded.before, viewer, everything))
        return out
