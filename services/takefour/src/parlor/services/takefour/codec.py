"""Take Four's events and views between the rule engine's dataclasses and protobuf.

Every event whose engine dataclass has ``Secret`` fields carries them in a nested
``secret`` message; showing a viewer their share goes through the engine's
``public_event`` (``seen_pb``), and so does what NATS gets (``public``: the event as a
spectator sees it during play, a joker swap shown as a move).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, cast

from google.protobuf.message import Message

from parlor.common.v1 import common_pb2
from parlor.gamehost.codec import Bodies, play_fields, seat_pb
from parlor.gamehost.messages import DEFAULT, Custom, Messages, Wire
from parlor.gamehost.seating import TABLE_EVENTS, Table, TableEvent
from parlor.gametypes.seats import Seat
from parlor.rules import takefour as tf
from parlor.rules.takefour.contract import ENGINE
from parlor.rules.takefour.tiles import STANDARD_TILES
from parlor.rules.takefour.view import GridChanged, SeatView, SeenEvent, Viewer
from parlor.takefour.v1 import takefour_pb2 as pb

Event = tf.TakeFourEvent | TableEvent
GAME_TYPE = "takefour"


# --- config -------------------------------------------------------------------------------


def tiles_of(message: pb.TileSet) -> tf.TileSet:
    """The tiles of a config; none (no letters, no jokers) means the standard set."""
    if not message.letters and not message.jokers:
        return STANDARD_TILES
    return MESSAGES.value(message, tf.TileSet)


def config_of(
    message: pb.Config, lexicon: str | None = None, *, recorded: bool = False
) -> tf.TakeFourConfig:
    """A config from a request or (``recorded``) an event; zero values mean the defaults.

    A stored game's rules version 0 is ``tf.RECORDED_BEFORE_VERSIONS``; a request's 0 is the
    current one, and a new game is played by no other (``tf.rules_for_new_game``).
    """
    config = _config_of(message)
    if not recorded:
        config = replace(config, rules=tf.rules_for_new_game(message.rules_version))
    return config if lexicon is None else replace(config, lexicon=lexicon)


# --- events, whole (what the store keeps) ---------------------------------------------------

BODIES = Bodies(pb.GameEvent, "Take Four")
MESSAGES: Messages[Event] = Messages(
    BODIES,
    tf.TakeFourEvent,
    GAME_TYPE,
    unspecified={tf.Phase.NOT_CREATED},  # a game not created has no phase yet
    fields={
        (tf.TakeFourConfig, "tiles"): Custom(
            lambda c: tiles_pb(c.tiles), lambda m: tiles_of(m.tiles)
        ),
        (tf.TakeFourConfig, "target"): Wire(zero=DEFAULT),
        (tf.TakeFourConfig, "deal_size"): Wire(zero=DEFAULT),
        (tf.TakeFourConfig, "rules"): Wire("rules_version", zero=tf.RECORDED_BEFORE_VERSIONS),
        (tf.RoundStarted, "bag_size"): Custom(lambda e: len(e.bag)),
        (tf.TilesDealt, "counts"): Custom(lambda e: e.counts),
        (tf.TilesDealt, "unused_count"): Custom(lambda e: len(e.unused)),
        **{(tf.TakeFourView, n): None for n in ("viewer", "seats")},
        **{(SeatView, n): None for n in ("seat", "player_id", "hand", "grid")},
    },
)
event_pb, event_of = MESSAGES.event_pb, MESSAGES.event_of
"""The protobuf message an event is stored as (secrets included), and back."""
tiles_pb: Callable[[tf.TileSet], pb.TileSet] = MESSAGES.writer(tf.TileSet, pb.TileSet)
config_pb = MESSAGES.writer(tf.TakeFourConfig, pb.Config)
_config_of = MESSAGES.reader(pb.Config, tf.TakeFourConfig)
Codec = MESSAGES.codec
"""``Codec()``: the ``EventCodec`` of Take Four games."""
_TYPES = BODIES.types
_TABLE_TYPES = frozenset(
    getattr(common_pb2, event.__name__).DESCRIPTOR.full_name for event in TABLE_EVENTS
)


# --- events as one viewer sees them ---------------------------------------------------------


def seen_pb(event: Event, viewer: Viewer, reveal: bool) -> tuple[Message, int]:
    """The message ``viewer`` may see of ``event`` (through the engine's ``public_event``):
    the event's own message, of the event whole or of the shape shown with its secrets out
    (a viewer's own share of them in the ``secret`` message, in its seat's place)."""
    unchanged = pb.GRID_CHANGE_UNSPECIFIED
    if isinstance(event, TABLE_EVENTS):
        return event_pb(event), unchanged
    seen: SeenEvent = tf.public_event(event, viewer, reveal=reveal)
    if seen is event:  # nothing of it is hidden from this viewer
        return event_pb(event), unchanged
    if isinstance(seen, GridChanged):  # only whose grid changed, and how the counts show
        change = pb.GridChange.Value(f"GRID_CHANGE_{seen.change.upper()}")
        shape: Any = SHAPES[seen.change]  # a message class with a seat field
        return shape(seat=seen.seat), change
    return MESSAGES.message(seen, MESSAGES.event_types[type(event)]), unchanged


SHAPES: dict[str, type[Message]] = {
    "placed": pb.TilePlaced,
    "moved": pb.TileMoved,
    "taken_back": pb.TileTakenBack,
}
"""The message a grid change is shown to others as: that of the change they may see (a joker
swap is shown as a move: ``GridChanged``)."""


def public(event_type: str, data: bytes) -> tuple[str, bytes]:
    """What NATS carries of a stored event (anyone on the bus reads it, as it happens): its
    type and payload as a spectator sees them during play (``seen_pb``), no ``secret`` and a
    joker swap as a ``TileMoved``, whose type alone would tell that a joker is now in that
    hand. Seats and results hide nothing: they go as stored."""
    if event_type in _TABLE_TYPES:
        return event_type, data
    seen, _ = seen_pb(event_of(BODIES.parse(event_type, data)), None, reveal=False)
    return seen.DESCRIPTOR.full_name, seen.SerializeToString(deterministic=True)


def game_event_pb(
    event: Event, info: common_pb2.EventInfo, viewer: Viewer, reveal: bool
) -> pb.GameEvent:
    """The event as ``viewer`` sees it; ``info.type`` names the message shown (a joker swap
    shown as a move is a ``TileMoved``)."""
    message, change = seen_pb(event, viewer, reveal)
    shown = message.DESCRIPTOR.full_name
    if change != pb.GRID_CHANGE_UNSPECIFIED and info.type and info.type != shown:
        renamed = common_pb2.EventInfo()
        renamed.CopyFrom(info)
        renamed.type = shown
        info = renamed
    out: pb.GameEvent = BODIES.wrap(message, info=info, change=cast(Any, change))
    return out


# --- the game as one viewer sees it ---------------------------------------------------------


def game_pb(
    game_id: str,
    version: int,
    table: Table[tf.TakeFourState],
    viewer: Viewer,
    reveal: bool = False,
) -> pb.Game:
    """The game as ``viewer`` sees it; ``reveal`` (a finished game replayed) shows everything."""
    state = table.game
    if state.phase is tf.Phase.NOT_CREATED:
        return pb.Game(game_id=game_id, version=version)
    seen = tf.view(state, viewer, reveal=reveal)
    tiles = state.config.tiles
    return MESSAGES.message(
        seen,
        pb.Game,
        game_id=game_id,
        version=version,
        seats=[_seat_pb(table, s, tiles) for s in seen.seats],
        **play_fields(ENGINE, state, viewer),
        board_text=tf.render(state, viewer, reveal=reveal),
    )


def _seat_pb(table: Table[tf.TakeFourState], s: SeatView, tiles: tf.TileSet) -> pb.SeatView:
    seat = table.seats[s.seat] if s.seat < len(table.seats) else Seat(s.player_id)
    grid = sorted((s.grid or {}).items(), key=lambda kv: (kv[0][1], kv[0][0]))
    return MESSAGES.message(
        s,
        pb.SeatView,
        seat=seat_pb(s.seat, seat),
        visible=s.hand is not None,
        hand=[pb.Tile(id=t, face=tiles.face(t)) for t in s.hand or ()],
        grid=[
            pb.GridTile(x=x, y=y, tile=p.tile, letter=p.letter, joker=tiles.is_joker(p.tile))
            for (x, y), p in grid
        ],
    )
