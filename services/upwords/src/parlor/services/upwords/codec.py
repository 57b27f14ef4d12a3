"""Upwords' events and views, between the rule engine's dataclasses and protobuf.

Secret fields of the engine's events (annotated ``Secret``) are protobuf fields of
their own, so a stripped event (``None`` there) encodes to a message with those fields
empty, and ``public`` clears them in a stored event's payload.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import cast

from parlor.common.v1 import common_pb2
from parlor.gamehost.codec import Bodies, game_fields
from parlor.gamehost.messages import Custom, Messages, Wire
from parlor.gamehost.seating import TABLE_EVENTS, Table, TableEvent
from parlor.gamehost.views import ElementWire
from parlor.rules import upwords as uw
from parlor.rules.upwords.contract import ENGINE
from parlor.rules.upwords.record import move_notation
from parlor.rules.upwords.render import render
from parlor.upwords.v1 import upwords_pb2 as pb

GAME_TYPE = "upwords"
STATUS = {uw.Phase.PLAYING: pb.STATUS_IN_PROGRESS, uw.Phase.ENDED: pb.STATUS_ENDED}

Event = uw.Event | TableEvent


def _racks_pb(racks: Sequence[Sequence[str] | None] | None) -> list[pb.SeatRack]:
    """Only the racks present: a stripped rack (None) is simply absent."""
    if racks is None:
        return []
    return [pb.SeatRack(seat=i, tiles=r) for i, r in enumerate(racks) if r is not None]


def _racks_of(
    messages: Sequence[pb.SeatRack], seats: int
) -> tuple[tuple[str, ...] | None, ...] | None:
    if not messages:
        return None
    by_seat = {m.seat: tuple(m.tiles) for m in messages}
    return tuple(by_seat.get(i) for i in range(seats))


def _racks_left_of(message: pb.GameEnded) -> tuple[tuple[str, ...], ...]:
    return tuple(r or () for r in _racks_of(message.racks_left, len(message.final_scores)) or ())


BODIES = Bodies(pb.GameEvent, "Upwords")
EVENT_TYPES = BODIES.types
decode_message = BODIES.parse
MESSAGES: Messages[Event] = Messages(
    BODIES,
    uw.Event,
    GAME_TYPE,
    fields={
        (uw.GameCreated, "racks"): Custom(
            lambda e: _racks_pb(e.racks), lambda m: _racks_of(m.racks, len(m.seats))
        ),
        (uw.GameEnded, "racks_left"): Custom(lambda e: _racks_pb(e.racks_left), _racks_left_of),
        (uw.PendingPlay, "passes_before"): None,
        (uw.UpwordsConfig, "rules"): Wire("rules_version", zero=uw.RECORDED_BEFORE_VERSIONS),
        **{(uw.PlayerView, n): None for n in ("viewer", "phase", "seats", "board", "racks", "bag")},
    },
)
event_pb, event_of = MESSAGES.event_pb, MESSAGES.event_of
"""The protobuf message an event is stored (full) or shown (stripped) as, and back."""
Codec = MESSAGES.codec
"""``Codec()``: the ``EventCodec`` of Upwords games."""
config_pb = MESSAGES.writer(uw.UpwordsConfig, pb.Config)
config_of = MESSAGES.reader(pb.Config, uw.UpwordsConfig)


def new_config(message: pb.Config) -> uw.UpwordsConfig:
    """A new game's config from a request's: its rules version 0 is the current one."""
    return replace(config_of(message), rules=uw.rules_for_new_game(message.rules_version))


def public(event_type: str, data: bytes) -> tuple[str, bytes]:
    """What NATS carries: the event's own type (every Upwords move is shown to all as what it
    is), its payload with every secret field cleared (as a stripped event's)."""
    return event_type, MESSAGES.public(event_type, data)


def shown(event: Event, viewer: int | None) -> Event:
    """The event as ``viewer`` (a seat, or None for a spectator) may see it during play: the
    engine's ``public_event`` (their own rack and draws, never bag order)."""
    if isinstance(event, TABLE_EVENTS):
        return event
    return cast(Event, ENGINE.public_event(event, viewer))


def game_event_pb(event: Event, info: common_pb2.EventInfo, board_before: uw.Board) -> pb.GameEvent:
    """An event (already as the viewer may see it) with its place in the stream."""
    out: pb.GameEvent = BODIES.wrap(
        event_pb(event), info=info, notation=move_notation(event, board_before)
    )
    return out


def _stack_pb(tiles: tuple[str, ...]) -> pb.Stack:
    return pb.Stack(tiles=tiles)


# The board's 100 stacks (row by row) go in as one parse of kept wire bytes.
_BOARD: ElementWire[tuple[str, ...]] = ElementWire(pb.Game, "board", _stack_pb)


def game_pb(
    game_id: str,
    version: int,
    table: Table[uw.UpwordsState],
    viewer: int | None,
    *,
    reveal: bool = False,
) -> pb.Game:
    """The game as ``viewer`` sees it; ``reveal`` (the game is over now) shows every rack."""
    v = uw.view(table.game, viewer)
    racks = v.racks if v.racks is not None else (table.game.racks if reveal else None)
    bag = v.bag if v.bag is not None else (table.game.bag if reveal else None)
    out = MESSAGES.message(
        v,
        pb.Game,
        **game_fields(game_id, version, table.seats),
        status=STATUS.get(v.phase, pb.STATUS_UNSPECIFIED),
        seats_to_move=ENGINE.to_move(table.game),
        racks=_racks_pb(racks),
        bag=bag,
        board_text=render(table.game, viewer) if table.seats else "",
        timed_out=table.game.out,
        departures=[table.game.departure(seat) for seat in range(table.game.players)],
        viewer_seat=viewer,
    )
    _BOARD.merge_into(out, v.board.stacks)
    return out
