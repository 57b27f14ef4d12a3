"""Tic-tac-toe, declared once: what the platform needs to know of the game, its wire (its
events, its ``Game`` and ``GameEvent`` pictures and its one move RPC: ``WIRE``) and how it is
served (``SERVING``: the servicer built from the two).

Registered under ``parlor.game_types`` by this package's pyproject.toml, and served
(``SERVING.component``, under ``parlor.services``), so it is on the platform only where
``parlor-example-tictactoe`` is installed.
"""

from __future__ import annotations

from typing import Any

from parlor.examples.tictactoe import rules as ttt
from parlor.gamehost.pipeline.games import GameType
from parlor.gamehost.table.codec import Bodies, table_fields
from parlor.gamehost.table.seating import GameFinished, SeatsTaken, Table
from parlor.gamehost.wire.messages import Custom, Messages
from parlor.gamehost.wire.wire import Move, Wire
from parlor.gamehost.wiring.serving import Serving
from parlor.tictactoe.v1 import tictactoe_pb2 as pb

Event = ttt.Event | SeatsTaken | GameFinished
BODIES = Bodies(pb.GameEvent, "tic-tac-toe")
MESSAGES: Messages[Event] = Messages(
    BODIES,
    ttt.Event,
    ttt.ENGINE.name,
    fields={(ttt.GameCreated, "config"): Custom(decode=lambda m: ttt.Config())},  # no choices
)
event_pb, event_of, Codec = MESSAGES.event_pb, MESSAGES.event_of, MESSAGES.codec


def game_event_pb(event: Event, info: object, before: object = None) -> pb.GameEvent:
    out: pb.GameEvent = BODIES.wrap(event_pb(event), info=info)
    if isinstance(event, ttt.MarkPlaced):
        out.notation = ttt.format_square(event.square)
    return out


def game_pb(
    game_id: str, version: int, table: Table[ttt.State], viewer: object = None, _: bool = False
) -> pb.Game:
    state = table.game
    outcome = ttt.ENGINE.result(state)
    return pb.Game(
        **table_fields(pb.Game, ttt.ENGINE, game_id, version, table, None),
        squares=["" if m is None else ttt.MARKS[m] for m in state.squares],
        end_reason=outcome.reason if outcome else "",
        board_text=ttt.render(state),
    )


PLACE = Move(lambda request, table, seat: ttt.Place(seat, ttt.parse_square(request.move)))
WIRE: Wire[Table[ttt.State], Event] = Wire(game_pb, game_event_pb, {"PlayMove": PLACE})

GAME: GameType[Table[ttt.State], Any, Event] = GameType(
    ttt.ENGINE,
    Codec(),
    ttt.standings,
    ttt,
    proto=pb,
    bots=("random",),
    rules_page="examples/tictactoe/README.md",
    notation=ttt.record,
    hosting=ttt.GAME,
)
SERVING = Serving(GAME, WIRE)  # tic-tac-toe hides nothing
