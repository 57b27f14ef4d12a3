"""Take Four on the wire: its ``Game`` and ``GameEvent`` pictures (``codec``: each event as
the engine's ``public_event`` lets a viewer see it) and its move RPCs, each refused if it
names another round (the rules' ``check_round``), from which the game host builds its
servicer (``SERVING``, with its queue and bot runner), a word game's: given the dictionary
client, every command carries the verdicts on the words it needs (the game's ``words``), on
the very state it is decided on. Its export is the rules' notation with the platform's
seats and finish (``export``); its bots are a runner's (``game.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf.message import Message

from parlor.common.v1 import common_pb2
from parlor.gamehost import GameHost
from parlor.gamehost.botrunner import service_runner
from parlor.gamehost.component import Served
from parlor.gamehost.export import export_parts
from parlor.gamehost.queue import GameQueue
from parlor.gamehost.seating import Seat, Table
from parlor.gamehost.service import GameService
from parlor.gamehost.serving import Serving
from parlor.gamehost.wire import Move, Wire
from parlor.rules import takefour as tf
from parlor.rules.takefour import hosting, notation
from parlor.services.takefour.codec import Event, game_event_pb, game_pb
from parlor.services.takefour.game import BOT_PACE_SECONDS, GAME, TakeFourSettings, bots
from parlor.takefour.v1 import takefour_pb2 as pb

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


def _game(game_id: str, version: int, table: State, viewer: int | None, all_: bool) -> Message:
    return game_pb(game_id, version, table, viewer, all_)


def _seen_event(
    event: Event, info: common_pb2.EventInfo, viewer: int | None, all_: bool
) -> Message:
    """The codec shows ``viewer`` what the engine's ``public_event`` lets them see."""
    return game_event_pb(event, info, viewer, all_)


WIRE: Wire[State, Event] = Wire(
    _game,
    moves={
        "PlaceTile": _play(lambda r, seat: tf.PlaceTile(seat, r.tile, r.x, r.y, _letter(r.letter))),
        "MoveTile": _play(_moved),
        "TakeBackTile": _play(lambda r, seat: tf.TakeBackTile(seat, r.cell.x, r.cell.y)),
        "SwapJoker": _play(lambda r, seat: tf.SwapJoker(seat, r.tile, r.cell.x, r.cell.y)),
        "CallTakeFour": _play(lambda r, seat: tf.CallTakeFour(seat)),
        "AgreeToDeal": _play(lambda r, seat: tf.AgreeToDeal(seat)),
        "WithdrawAgreement": _play(lambda r, seat: tf.WithdrawAgreement(seat)),
        "CallDone": _play(lambda r, seat: tf.CallDone(seat)),
        # The seat forfeits (as a seat idle past three limits does) and the others play on.
        "Leave": _play(lambda r, seat: tf.Forfeit(seat, "LEFT")),
    },
    seen_event=_seen_event,
    view_cache=False,  # cheap to build, and a test switches its redaction off in a live service
)


def _start(make: Callable[..., GameService[State, Event]], settings: TakeFourSettings) -> Served:
    """The servicer with its queue, and the bot runner that plays its bots (``bots``)."""
    served = make(queue=GameQueue() if settings.queue_per_game else None)
    runner = service_runner(served.pipeline, bots(), settings, paces=BOT_PACE_SECONDS)
    return Served(served, [runner.run], {"bots": runner})


# Its servicer: ``SERVING.servicer(host, dictionary, queue=...)``.
SERVING = Serving(GAME, WIRE, settings=TakeFourSettings, start=_start)
