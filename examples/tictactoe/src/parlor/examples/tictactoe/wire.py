"""Tic-tac-toe on the wire: its events, its ``Game`` and ``GameEvent`` pictures and its one
move RPC (``WIRE``), from which the game host builds its servicer."""

from __future__ import annotations

from parlor.examples.tictactoe import rules as ttt
from parlor.gamehost.codec import Bodies, game_fields
from parlor.gamehost.messages import Custom, Messages
from parlor.gamehost.seating import GameFinished, SeatsTaken, Table
from parlor.gamehost.wire import Move, Wire
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
        **game_fields(game_id, version, table.seats),
        squares=["" if m is None else ttt.MARKS[m] for m in state.squares],
        seats_to_move=list(ttt.ENGINE.to_move(state)),
        winners=list(outcome.winners) if outcome else [],
        end_reason=outcome.reason if outcome else "",
        board_text=ttt.render(state),
    )


PLACE = Move(lambda request, table, seat: ttt.Place(seat, ttt.parse_square(request.move)))
WIRE: Wire[Table[ttt.State], Event] = Wire(game_pb, game_event_pb, {"PlayMove": PLACE})
