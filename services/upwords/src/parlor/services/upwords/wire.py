"""Upwords on the wire: its ``Game`` and ``GameEvent`` pictures (``codec``) and its move RPCs,
from which the game host builds its servicer (``SERVING``), a word game's: given the
dictionary client, every command asks it about its words in one batch, inside it, so the
verdicts are about the very state the command is decided on (the game's ``words``).

Every response is built for its caller: their own rack and draws, counts for everyone
else's, until the game ends (then everything). The bots are the game's (``game.UpwordsBots``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from parlor.core.errors import InvalidArgument
from parlor.gamehost.component import Served
from parlor.gamehost.serving import Serving
from parlor.gamehost.wire import Move, Wire
from parlor.kit.settings import setting
from parlor.rules import upwords as uw
from parlor.rules.upwords import notation
from parlor.services.upwords.codec import Event, game_event_pb, game_pb
from parlor.services.upwords.game import GAME, UpwordsBots, UpwordsTable, insert_position
from parlor.upwords.v1 import upwords_pb2 as pb

__all__ = ["SERVING", "UpwordsTable", "insert_position", "wire"]


def _meant_play(request: pb.ChallengeRequest | pb.AcceptPlayRequest, table: UpwordsTable) -> None:
    """A challenge or accept naming a play (``play``) other than the one pending is stale."""
    uw.check_meant_play(table.game, request.play)


def _play(request: pb.PlayRequest) -> notation.NotatedPlay:
    """A play's placements or its notation, read at the edge (tiles on the board: ``kept``)."""
    return notation.play_of([(p.row, p.col, p.tile) for p in request.placements], request.move)


def _played(play: notation.NotatedPlay, table: UpwordsTable, seat: int) -> uw.Play:
    notation.check_kept(table.game.board, play.kept)
    return uw.Play(seat, play.placements)  # every board rule first, then one batch


def _tile(request: pb.ExchangeRequest) -> str:
    tile = notation.tile_of(request.tile)
    if tile not in uw.DISTRIBUTION:
        raise InvalidArgument(f"{request.tile!r} is not an Upwords tile", reason="UNKNOWN_TILE")
    return tile


def _game(game_id: str, version: int, table: UpwordsTable, viewer: int | None, all_: bool) -> Any:
    return game_pb(game_id, version, table, viewer, reveal=all_)


def wire(chance: random.Random) -> Wire[UpwordsTable, Event]:
    """Upwords' wire, a returned tile put back into the bag where ``chance`` (a secure
    random) says. An event's notation reads the board before it."""
    return Wire(
        _game,
        lambda event, info, before: game_event_pb(event, info, before.game.board),
        {
            "Play": Move(_played, parse=_play),
            "Pass": Move(lambda request, table, seat: uw.Pass(seat)),
            "Exchange": Move(
                lambda tile, table, seat: uw.Exchange(
                    seat, tile, insert_position(chance, table.game)
                ),
                parse=_tile,
            ),
            # Both name the play they mean (``play``): refused if another is pending (PLAY_CHANGED).
            "AcceptPlay": Move(lambda request, table, seat: uw.AcceptPlay(seat), _meant_play),
            "Resign": Move(lambda request, table, seat: uw.Resign(seat)),
            # the verdicts go in as the pipeline builds it
            "Challenge": Move(lambda request, table, seat: uw.Challenge(seat, {}), _meant_play),
        },
    )


@dataclass(frozen=True)
class BotSettings:
    words: str = setting(
        "PARLOR_UPWORDS_BOT_WORDS",
        "word list file the Upwords bots play from (empty: the packaged ENABLE list)",
        "",
    )


# Its servicer (``SERVING.servicer(host, dictionary, bot_words=..., chance=...)``): the wire
# and the bots draw from ``chance``; the component's bots play from ``BotSettings.words``.
SERVING = Serving(
    GAME, wire, UpwordsBots, BotSettings, lambda make, s: Served(make(bot_words=s.words))
)
