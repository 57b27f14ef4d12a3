"""The gRPC face of Take Four: its moves and pictures; the rest is the game host's.

``GameService`` (libs/gamehost) serves create, get, history, watch, list, replay and
export from the game's declaration (``GAME``: its create is the rules',
``parlor.rules.takefour.hosting``); ``WordGameService`` checks the words every
command needs (``word_checks``) on the very state it is decided on; Take Four's bots are a
runner's (``game.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from parlor.gamehost import GameHost, Recorded
from parlor.gamehost.codec import event_info
from parlor.gamehost.export import export_parts
from parlor.gamehost.seating import Seat, Table
from parlor.gamehost.service import Move
from parlor.gamehost.wordgame import WordGameService
from parlor.rules import takefour as tf
from parlor.rules.takefour import hosting, notation
from parlor.services.takefour.codec import Event, game_event_pb, game_pb
from parlor.services.takefour.game import GAME
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

State = Table[tf.TakeFourState]
TakeFourHost = GameHost[State, Any, Event]


def engine_seats(seats: tuple[Seat, ...]) -> tuple[str, ...]:
    """The engine's seat names of the table's seats (``hosting.engine_seats``)."""
    return hosting.engine_seats(tuple(s.player_id for s in seats), tuple(s.is_bot for s in seats))


def export(game_id: str, lexicon_id: str, events: Sequence[Event]) -> str:
    """A game in Take Four notation (``parlor.rules.takefour.notation``) with the platform's
    seats and finish in it; ``events`` is the whole stream, in order (as ``ExportGame``'s:
    ``hosting.TakeFour.export``)."""
    return notation.export(game_id, lexicon_id, *export_parts(events))


def _play(build: Callable[[Any, int], tf.TakeFourCommand]) -> Move:
    """A move RPC: ``build(request, seat)``, refused if the request names another round."""
    return Move(
        lambda request, table, seat: build(request, seat),
        lambda request, table: tf.check_round(table.game, request.round),
    )


def _letter(value: str) -> str | None:
    return value.upper() if value else None


def _moved(r: pb.MoveTileRequest, seat: int) -> tf.MoveTile:
    f, t = getattr(r, "from"), r.to
    return tf.MoveTile(seat, f.x, f.y, t.x, t.y, _letter(r.letter))


class TakeFourServicer(WordGameService[State, Event], pb_grpc.TakeFourServiceServicer):
    game = GAME
    simultaneous = True
    view_cache = False
    word_checks = tf.TAKE_FOUR  # what each call needs checked: the dictionary's verdicts go in
    PlaceTile = _play(lambda r, seat: tf.PlaceTile(seat, r.tile, r.x, r.y, _letter(r.letter)))
    MoveTile = _play(_moved)
    TakeBackTile = _play(lambda r, seat: tf.TakeBackTile(seat, r.cell.x, r.cell.y))
    SwapJoker = _play(lambda r, seat: tf.SwapJoker(seat, r.tile, r.cell.x, r.cell.y))
    CallTakeFour = _play(lambda r, seat: tf.CallTakeFour(seat))
    AgreeToDeal = _play(lambda r, seat: tf.AgreeToDeal(seat))
    WithdrawAgreement = _play(lambda r, seat: tf.WithdrawAgreement(seat))
    CallDone = _play(lambda r, seat: tf.CallDone(seat))
    # The seat forfeits (as a seat idle past three limits does) and the others play on.
    Leave = _play(lambda r, seat: tf.Forfeit(seat, "LEFT"))

    # -- the game's own mapping --------------------------------------------------------------

    def build_game(
        self, game_id: str, version: int, table: State, viewer: int | None, everything: bool
    ) -> pb.Game:
        return game_pb(game_id, version, table, viewer, everything)

    def event_message(
        self, recorded: Recorded[Event], before: State | None, viewer: int | None, everything: bool
    ) -> pb.GameEvent:
        """The codec shows ``viewer`` what the engine's ``public_event`` lets them see."""
        return game_event_pb(recorded.event, event_info(recorded), viewer, everything)
