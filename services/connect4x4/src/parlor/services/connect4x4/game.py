"""Connect 4x4, declared once: the one place that says what this game is to the platform.

Its rules are in ``parlor.rules.connect4x4`` (every rule, in words: docs/rules/connect4x4.md),
under the game contract (``contract.ENGINE``: the name, the seat range), with what the
platform asks of them beyond it: the standings ``GameFinished`` carries, whose clock runs
(``timing``), how replay tools rebuild commands (``replay``), how a game is created and how
its bots play (``hosting``). This module adds the wire: its events, its ``Game`` and
``GameEvent`` pictures and its move RPCs (``WIRE``; nothing is hidden, so one picture per
version serves every watcher and reply); the declaration (``GAME``: the event codec, the
bots, the proto and the time controls) and how it is served (``SERVING``: its servicer built
from the two). ``GAME`` is registered under ``parlor.game_types`` and ``SERVING.component``
under ``parlor.services`` (pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.gamehost.pipeline.games import GameType
from parlor.gamehost.table.codec import Bodies, table_fields
from parlor.gamehost.table.seating import Table, TableEvent
from parlor.gamehost.wire.messages import Messages
from parlor.gamehost.wire.views import ElementWire
from parlor.gamehost.wire.wire import Move, Wire
from parlor.gamehost.wiring.serving import Serving
from parlor.gametypes.timecontrol import TimeControl
from parlor.rules import connect4x4 as c4
from parlor.rules.connect4x4 import hosting, replay
from parlor.rules.connect4x4.contract import ENGINE
from parlor.rules.connect4x4.standings import standings as standings  # tests read it here
from parlor.rules.connect4x4.timing import TIMING

Event = c4.Event | TableEvent

BODIES = Bodies(pb.GameEvent, "Connect 4x4")
MESSAGES: Messages[Event] = Messages(
    BODIES,
    c4.Event,
    ENGINE.name,
    unspecified={c4.Status.NOT_STARTED},  # enums by name; a game not started has no status
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
    out = MESSAGES.message(
        v,
        pb.Game,
        **table_fields(pb.Game, ENGINE, game_id, version, table, viewer),
        timed_out=table.game.timed_out,
        departures=[table.game.departure(seat) for seat in range(table.game.players)],
        board_text=c4.render(table.game, v),
    )
    _FRONT.merge_groups(out, v.front)
    _BACK.merge_groups(out, v.back)
    return out


MOVES = {
    "PlayMove": Move(lambda request, table, seat: c4.parse_move(request.move, seat)),
    "Resign": Move(lambda request, table, seat: c4.Resign(seat)),
}
WIRE: Wire[Table[c4.State], Event] = Wire(game_pb, game_event_pb, MOVES)

GAME: GameType[Table[c4.State], Any, Event] = GameType(
    ENGINE,
    Codec(),
    standings,
    replay,
    TIMING,
    pb,
    bots=("random", "greedy", "strong"),
    rules_page="docs/rules/connect4x4.md",
    departures=(pb.PlayerResigned, pb.PlayerTimedOut),
    notation=c4.record,
    hosting=hosting.GAME,
    config_of=config_of,
    default_time_control=TimeControl.fischer(300, 3),
    time_controls=(
        TimeControl.per_move(30),
        TimeControl.fischer(180, 2),
        TimeControl.fischer(300, 3),
        TimeControl.correspondence(days=2),
    ),
)
rules = GAME.rules  # the seated rules, as tests and tools fold a stream with
SERVING = Serving(GAME, WIRE)  # Connect 4x4 hides nothing
