"""Take Four's events and views between the rule engine's dataclasses and protobuf.

Every event whose engine dataclass has ``Secret`` fields carries them in a nested
``secret`` message, so stripping hidden information is one ``ClearField`` (``public``,
what NATS gets) and showing a viewer their share goes through the engine's
``public_event`` (``seen_pb``).
"""

from __future__ import annotations

from typing import Any, cast

from google.protobuf.message import Message

from parlor.common.v1 import common_pb2
from parlor.core.errors import InvalidArgument
from parlor.gamehost.codec import Bodies, seat_pb
from parlor.gamehost.messages import Custom, Messages
from parlor.gamehost.seating import GameFinished, Seat, SeatsTaken, Table
from parlor.rules import takefour as tf
from parlor.rules.takefour.contract import ENGINE
from parlor.rules.takefour.crossword import Cell
from parlor.rules.takefour.tiles import STANDARD_TILES
from parlor.rules.takefour.view import (
    DoneCalledSeen,
    GridChanged,
    RoundScoredSeen,
    RoundStartedSeen,
    SeatView,
    SeenEvent,
    TilesDealtSeen,
    Viewer,
)
from parlor.takefour.v1 import takefour_pb2 as pb

Event = tf.TakeFourEvent | SeatsTaken | GameFinished
GAME_TYPE = "takefour"

CHECKING = {"honor": pb.CHECKING_HONOR, "auto": pb.CHECKING_AUTO}
CHECKING_BACK = {v: k for k, v in CHECKING.items()}
PHASE = {
    tf.Phase.BETWEEN_ROUNDS: pb.PHASE_BETWEEN_ROUNDS,
    tf.Phase.PLAYING: pb.PHASE_PLAYING,
    tf.Phase.OVER: pb.PHASE_OVER,
}
DEFAULT_TARGET = 100
DEFAULT_DEAL_SIZE = 4


# --- config -------------------------------------------------------------------------------


def tiles_pb(tiles: tf.TileSet) -> pb.TileSet:
    return MESSAGES.message(tiles, pb.TileSet)


def tiles_of(message: pb.TileSet) -> tf.TileSet:
    """The tiles of a config; none (no letters, no jokers) means the standard set."""
    if not message.letters and not message.jokers:
        return STANDARD_TILES
    return MESSAGES.value(message, tf.TileSet)


def config_pb(config: tf.TakeFourConfig) -> pb.Config:
    return pb.Config(
        tiles=tiles_pb(config.tiles),
        checking=CHECKING[config.checking],
        target=config.target,
        max_rounds=config.max_rounds or 0,
        deal_size=config.deal_size,
        lexicon=config.lexicon,
        rules_version=config.rules,
    )


RECORDED_BEFORE_VERSIONS = 1
"""The rules version of a stored game whose config has none: it was created before them."""


def config_of(
    message: pb.Config, lexicon: str | None = None, *, recorded: bool = False
) -> tf.TakeFourConfig:
    """A config from a request or (``recorded``) an event; zero values mean the defaults.

    A request's rules version 0 is the current one; a stored game's 0 is version 1, the
    reading it was decided by before versions were recorded. A new game may ask only for
    the current version: older readings exist to replay the games decided by them.
    """
    unset = RECORDED_BEFORE_VERSIONS if recorded else tf.RULES_VERSION
    if not recorded and message.rules_version not in (0, tf.RULES_VERSION):
        raise InvalidArgument(
            f"new games are played by rules version {tf.RULES_VERSION} (or leave it 0);"
            " older versions only replay the games recorded with them",
            reason="UNSUPPORTED_RULES_VERSION",
        )
    return tf.TakeFourConfig(
        tiles=tiles_of(message.tiles),
        checking=cast(Any, CHECKING_BACK.get(message.checking, "honor")),
        target=message.target or DEFAULT_TARGET,
        max_rounds=message.max_rounds or None,
        deal_size=message.deal_size or DEFAULT_DEAL_SIZE,
        lexicon=lexicon if lexicon is not None else message.lexicon,
        rules=message.rules_version or unset,
    )


# --- events, whole (what the store keeps) ---------------------------------------------------

BODIES = Bodies(pb.GameEvent, "Take Four")
MESSAGES: Messages[Event] = Messages(
    BODIES,
    tf.TakeFourEvent,
    GAME_TYPE,
    enums={tf.Phase: PHASE},
    types={tf.TakeFourConfig: (config_pb, lambda m: config_of(m, recorded=True))},
    fields={
        (tf.RoundStarted, "bag_size"): Custom(lambda e: len(e.bag)),
        (tf.TilesDealt, "counts"): Custom(lambda e: e.counts),
        (tf.TilesDealt, "unused_count"): Custom(lambda e: len(e.unused)),
        (TilesDealtSeen, "own"): None,
        (RoundScoredSeen, "own_removed"): None,
        **{(tf.TakeFourView, n): None for n in ("viewer", "seats")},
    },
)
event_pb, event_of = MESSAGES.event_pb, MESSAGES.event_of
"""The protobuf message an event is stored as (secrets included), and back."""
Codec = MESSAGES.codec
"""``Codec()``: the ``EventCodec`` of Take Four games."""
_TYPES = BODIES.types
_cells = MESSAGES.writer(tuple[Cell, ...], pb.Cells)


public = MESSAGES.public
"""The payload anyone may see (what NATS carries): the ``secret`` message removed."""


# --- events as one viewer sees them ---------------------------------------------------------


SEEN = {
    RoundStartedSeen: pb.RoundStarted,
    TilesDealtSeen: pb.TilesDealt,
    DoneCalledSeen: pb.DoneCalled,
    RoundScoredSeen: pb.RoundScored,
}
"""The message of each shape of event a viewer is shown with its secrets taken out."""


def seen_pb(event: Event, viewer: Viewer, reveal: bool) -> tuple[Message, int]:
    """The message ``viewer`` may see of ``event`` (through the engine's ``public_event``)."""
    unchanged = pb.GRID_CHANGE_UNSPECIFIED
    if isinstance(event, SeatsTaken | GameFinished):
        return event_pb(event), unchanged
    seen: SeenEvent = tf.public_event(event, viewer, reveal=reveal)
    if isinstance(seen, GridChanged):  # only whose grid changed, and how
        change = pb.GridChange.Value(f"GRID_CHANGE_{seen.change.upper()}")
        return MESSAGES.event_types[type(event)](seat=seen.seat), change
    into = SEEN.get(type(seen))
    if into is None:
        return event_pb(event), unchanged
    out: Any = MESSAGES.message(seen, into)
    if viewer is not None and isinstance(seen, TilesDealtSeen):
        seats = range(len(seen.counts))
        out.secret.hands.extend(pb.Hand(tiles=seen.own if s == viewer else ()) for s in seats)
    elif viewer is not None and isinstance(seen, RoundScoredSeen):
        seats = range(len(seen.scores))
        out.secret.removed.extend(_cells(seen.own_removed if s == viewer else ()) for s in seats)
    return out, unchanged


def game_event_pb(
    event: Event, info: common_pb2.EventInfo, viewer: Viewer, reveal: bool
) -> pb.GameEvent:
    message, change = seen_pb(event, viewer, reveal)
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
    outcome = tf.TAKE_FOUR.result(state)
    out = MESSAGES.message(
        seen,
        pb.Game,
        game_id=game_id,
        version=version,
        seats=[_seat_pb(table, s, tiles) for s in seen.seats],
        seats_to_move=ENGINE.to_move(state),
        viewer_seat=viewer,
        winners=outcome.winners if outcome is not None else (),
        board_text=tf.render(state, viewer, reveal=reveal),
    )
    return out


def _seat_pb(table: Table[tf.TakeFourState], s: SeatView, tiles: tf.TileSet) -> pb.SeatView:
    seat = table.seats[s.seat] if s.seat < len(table.seats) else Seat(s.player_id)
    out = pb.SeatView(
        seat=seat_pb(s.seat, seat),
        in_hand=s.in_hand,
        on_grid=s.on_grid,
        agrees_to_deal=s.agrees_to_deal,
        calls=s.calls,
        total=s.total,
        visible=s.hand is not None,
        idle=s.idle,
        forfeited=s.forfeited,
    )
    if s.hand is not None:
        out.hand.extend(pb.Tile(id=t, face=tiles.face(t)) for t in s.hand)
    if s.grid is not None:
        out.grid.extend(
            pb.GridTile(x=x, y=y, tile=p.tile, letter=p.letter, joker=tiles.is_joker(p.tile))
            for (x, y), p in sorted(s.grid.items(), key=lambda kv: (kv[0][1], kv[0][0]))
        )
    return out
