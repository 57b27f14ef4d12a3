"""A game's facts as its own stream records them: who sits, whether it has ended, whether it
is private (and its spectator invite), whether its type hides information.

Read from the game's stream in the event store, never from a request: the seats and the
privacy of its ``SeatsTaken`` (and that event's metadata, ``parlor.admission.privacy``), the
end from its ``GameFinished``. Seats and privacy never change, so they are kept once read; a
game not yet ended is read on from the version last seen at each ask.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, replace

from parlor.admission.privacy import Privacy, unknown_game
from parlor.chatrules import GameFacts
from parlor.common.v1 import common_pb2
from parlor.core.errors import InvalidArgument
from parlor.directory.listed import GAME_FINISHED, SEATS_TAKEN
from parlor.eventstore import EventStore
from parlor.gametypes.catalogue import CataloguedGame
from parlor.kit.auth import Identity
from parlor.services.chat.rooms import GAME_ID

CACHED_GAMES = 4096


@dataclass(frozen=True)
class Known:
    seats: tuple[str, ...]
    privacy: Privacy
    finished: bool
    version: int


class Games:
    """The facts of the installed game types' games."""

    def __init__(self, store: EventStore, types: Mapping[str, CataloguedGame]) -> None:
        self.store = store
        self.types = dict(types)
        self._known: OrderedDict[str, Known] = OrderedDict()

    def game_type(self, name: str) -> CataloguedGame:
        game = self.types.get(name)
        if game is None:
            raise InvalidArgument(
                f"unknown game type; one of {sorted(self.types)}", reason="UNKNOWN_GAME_TYPE"
            )
        return game

    async def facts(
        self, game_type: str, game_id: str, caller: Identity, invite: str = ""
    ) -> GameFacts:
        """The game's facts for ``caller``; a game that does not exist, or a private one the
        caller may not see, is ``NOT_FOUND GAME_NOT_FOUND`` alike."""
        game = self.game_type(game_type)
        if not GAME_ID.match(game_id):
            raise unknown_game(game.category, game_id[:128])
        known = await self._read(f"{game.category}-{game_id}")
        if known is None or not known.privacy.admits(caller, known.seats, invite):
            raise unknown_game(game.category, game_id)
        return GameFacts(known.seats, known.finished, game.hides)

    async def _read(self, stream: str) -> Known | None:
        known = self._known.get(stream)
        if known is not None and known.finished:
            return known
        start = 1 if known is None else known.version + 1
        for event in await self.store.read_stream(stream, start):
            if known is None:
                if event.type != SEATS_TAKEN:
                    continue
                seats = common_pb2.SeatsTaken.FromString(event.data).seats
                known = Known(
                    tuple(s.player_id for s in seats),
                    Privacy.of(event.metadata.extra),
                    False,
                    event.version,
                )
            known = replace(
                known, version=event.version, finished=known.finished or event.type == GAME_FINISHED
            )
        if known is not None:
            self._known[stream] = known
            self._known.move_to_end(stream)
            while len(self._known) > CACHED_GAMES:
                self._known.popitem(last=False)
        return known
