"""Connect 4x4 on the wire: its events, its ``Game`` and ``GameEvent`` pictures and its move
RPCs (``WIRE``), from which the game host builds its servicer. Nothing is hidden, so one
picture per version serves every watcher and reply."""

from __future__ import annotations

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.gamehost.codec import Bodies, game_fields
from parlor.gamehost.messages import Messages
from parlor.gamehost.seating import Table, TableEvent
from parlor.gamehost.views import ElementWire
from parlor.gamehost.wire import Move, Wire
from parlor.rules import connect4x4 as c4
from parlor.rules.connect4x4.contract import ENGINE

CONTENT = {
    c4.Content.EMPTY: pb.CONTENT_EMPTY,
    c4.Content.CHECKER: pb.CONTENT_CHECKER,
    c4.Content.BLOCKER: pb.CONTENT_BLOCKER,
    c4.Content.DEAD: pb.CONTENT_DEAD,
}
STATUS = {
    c4.Status.IN_PROGRESS: pb.STATUS_IN_PROGRESS,
    c4.Status.WON: pb.STATUS_WON,
    c4.Status.TIED: pb.STATUS_TIED,
}

Event = c4.Event | TableEvent

BODIES = Bodies(pb.GameEvent, "Connect 4x4")
MESSAGES: Messages[Event] = Messages(
    BODIES,
    c4.Event,
    ENGINE.name,
    enums={c4.Status: STATUS, c4.Content: CONTENT},
    fields={(c4.GameView, name): None for name in ("viewer", "front", "back")},
)
event_pb, event_of = MESSAGES.event_pb, MESSAGES.event_of
Codec = MESSAGES.codec
"""``Codec()``: the ``EventCodec`` of Connect 4x4 games."""
config_pb = MESSAGES.writer(c4.Config, pb.Config)
config_of = MESSAGES.reader(pb.Config, c4.Config)


def game_event_pb(event: Event, info: common_pb2.EventInfo, before: object = None) -> pb.GameEvent:
    out: pb.GameEvent = BODIES.wrap(event_pb(event), info=info, notation=c4.event_notation(event))
    return out


# The board's 84 holes go in as one parse of kept wire bytes, not 84 messages: a column's
# bytes kept too, as views share their columns (``c4.view``).
_FRONT = ElementWire(pb.Game, "front", MESSAGES.writer(c4.Hole, pb.Hole))
_BACK = ElementWire(pb.Game, "back", MESSAGES.writer(c4.Hole, pb.Hole))


def game_pb(
    game_id: str, version: int, table: Table[c4.State], viewer: int | None, _: bool = False
) -> pb.Game:
    v = c4.view(table.game, viewer)
    outcome = ENGINE.result(table.game)
    out = MESSAGES.message(
        v,
        pb.Game,
        **game_fields(game_id, version, table.seats),
        timed_out=table.game.timed_out,
        departures=[table.game.departure(seat) for seat in range(table.game.players)],
        board_text=c4.render(table.game, v),
        seats_to_move=ENGINE.to_move(table.game),
        winners=outcome.winners if outcome is not None else (),
    )
    _FRONT.merge_groups(out, v.front)
    _BACK.merge_groups(out, v.back)
    return out


MOVES = {
    "PlayMove": Move(lambda request, table, seat: c4.parse_move(request.move, seat)),
    "Resign": Move(lambda request, table, seat: c4.Resign(seat)),
}
WIRE: Wire[Table[c4.State], Event] = Wire(game_pb, game_event_pb, MOVES)
