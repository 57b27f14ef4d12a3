"""Upwords' events and views, between the rule engine's dataclasses and protobuf.

Secret fields of the engine's events (marked ``secret`` in their dataclass
metadata) are protobuf fields of their own, so a stripped event (``None`` there)
encodes to a message with those fields empty, and ``public`` can publish it.
"""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.message import Message

from parlor.common.v1 import common_pb2
from parlor.gamehost.codec import Bodies, ProtoCodec, seat_pb, table_event_of, table_event_pb
from parlor.gamehost.seating import GameFinished, SeatsTaken, Table
from parlor.gamehost.views import ElementWire
from parlor.rules import upwords as uw
from parlor.rules.upwords.contract import ENGINE
from parlor.rules.upwords.notation import PASS, format_exchange, format_play
from parlor.rules.upwords.render import render
from parlor.upwords.v1 import upwords_pb2 as pb

GAME_TYPE = "upwords"

Event = uw.Event | SeatsTaken | GameFinished

CHECKING = {
    uw.WordChecking.AUTO: pb.WORD_CHECKING_AUTO,
    uw.WordChecking.CHALLENGE: pb.WORD_CHECKING_CHALLENGE,
}
CHECKING_BACK = {v: k for k, v in CHECKING.items()}


def config_pb(config: uw.UpwordsConfig) -> pb.Config:
    return pb.Config(
        word_checking=CHECKING[config.word_checking],
        plural_rule=config.plural_rule,
        lexicon=config.lexicon,
    )


def config_of(message: pb.Config) -> uw.UpwordsConfig:
    return uw.UpwordsConfig(
        word_checking=CHECKING_BACK.get(message.word_checking, uw.WordChecking.AUTO),
        plural_rule=message.plural_rule if message.HasField("plural_rule") else True,
        lexicon=message.lexicon,
    )


def placements_pb(placements: Sequence[uw.Placement]) -> list[pb.Placement]:
    return [pb.Placement(row=p.row, col=p.col, tile=p.tile) for p in placements]


def placements_of(messages: Sequence[pb.Placement]) -> tuple[uw.Placement, ...]:
    return tuple(uw.Placement(p.row, p.col, p.tile) for p in messages)


def _racks_pb(racks: Sequence[Sequence[str] | None] | None) -> list[pb.SeatRack]:
    """Only the racks present: a stripped rack (None) is simply absent."""
    if racks is None:
        return []
    return [pb.SeatRack(seat=i, tiles=list(r)) for i, r in enumerate(racks) if r is not None]


def _racks_of(
    messages: Sequence[pb.SeatRack], seats: int
) -> tuple[tuple[str, ...] | None, ...] | None:
    if not messages:
        return None
    by_seat = {m.seat: tuple(m.tiles) for m in messages}
    return tuple(by_seat.get(i) for i in range(seats))


def event_pb(event: Event) -> Message:
    """The protobuf message an event is stored (full) or shown (stripped) as."""
    common = table_event_pb(event, GAME_TYPE)
    if common is not None:
        return common
    match event:
        case uw.GameCreated():
            return pb.GameCreated(
                config=config_pb(event.config),
                seats=list(event.seats),
                first_draw=[
                    pb.DrawRound(draws=[pb.SeatTile(seat=s, tile=t) for s, t in r.draws])
                    for r in event.first_draw
                ],
                first_seat=event.first_seat,
                bag_count=event.bag_count,
                racks=_racks_pb(event.racks),
                bag=list(event.bag or ()),
            )
        case uw.WordPlayed(seat, placements, words, score, bonus):
            return pb.WordPlayed(
                seat=seat,
                placements=placements_pb(placements),
                words=list(words),
                score=score,
                bonus=bonus,
            )
        case uw.TilesDrawn(seat, count, drawn):
            return pb.TilesDrawn(seat=seat, count=count, drawn=list(drawn or ()))
        case uw.Passed(seat):
            return pb.Passed(seat=seat)
        case uw.TileExchanged(seat, returned, drawn, position):
            out = pb.TileExchanged(seat=seat, returned=returned or "", drawn=drawn or "")
            if position is not None:
                out.position = position
            return out
        case uw.PlayAccepted(seat):
            return pb.PlayAccepted(seat=seat)
        case uw.ChallengeFailed(challenger, seat):
            return pb.ChallengeFailed(challenger=challenger, seat=seat)
        case uw.PlayWithdrawn(challenger, seat, invalid, placements, score):
            return pb.PlayWithdrawn(
                challenger=challenger,
                seat=seat,
                invalid_words=list(invalid),
                placements=placements_pb(placements),
                score=score,
            )
        case uw.PlayerResigned(seat):
            return pb.PlayerResigned(seat=seat)
        case uw.PlayerTimedOut(seat):
            return pb.PlayerTimedOut(seat=seat)
        case uw.GameEnded(reason, racks_left, penalties, final_scores, winners):
            return pb.GameEnded(
                reason=reason,
                racks_left=_racks_pb(racks_left),
                penalties=list(penalties),
                final_scores=list(final_scores),
                winners=list(winners),
            )
    raise TypeError(f"not an Upwords event: {event!r}")


def event_of(message: Message) -> Event:
    common = table_event_of(message)
    if common is not None:
        return common
    match message:
        case pb.GameCreated():
            return uw.GameCreated(
                config=config_of(message.config),
                seats=tuple(message.seats),
                first_draw=tuple(
                    uw.DrawRound(tuple((d.seat, d.tile) for d in r.draws))
                    for r in message.first_draw
                ),
                first_seat=message.first_seat,
                racks=_racks_of(message.racks, len(message.seats)),
                bag=tuple(message.bag) if message.bag else None,
                bag_count=message.bag_count,
            )
        case pb.WordPlayed():
            return uw.WordPlayed(
                message.seat,
                placements_of(message.placements),
                tuple(message.words),
                message.score,
                message.bonus,
            )
        case pb.TilesDrawn():
            drawn = tuple(message.drawn) if message.drawn else None
            return uw.TilesDrawn(message.seat, message.count, drawn)
        case pb.Passed():
            return uw.Passed(message.seat)
        case pb.TileExchanged():
            return uw.TileExchanged(
                message.seat,
                message.returned or None,
                message.drawn or None,
                message.position if message.HasField("position") else None,
            )
        case pb.PlayAccepted():
            return uw.PlayAccepted(message.seat)
        case pb.ChallengeFailed():
            return uw.ChallengeFailed(message.challenger, message.seat)
        case pb.PlayWithdrawn():
            return uw.PlayWithdrawn(
                message.challenger,
                message.seat,
                tuple(message.invalid_words),
                placements_of(message.placements),
                message.score,
            )
        case pb.PlayerResigned():
            return uw.PlayerResigned(message.seat)
        case pb.PlayerTimedOut():
            return uw.PlayerTimedOut(message.seat)
        case pb.GameEnded():
            racks = _racks_of(message.racks_left, len(message.final_scores)) or ()
            return uw.GameEnded(
                message.reason,
                tuple(r or () for r in racks),
                tuple(message.penalties),
                tuple(message.final_scores),
                tuple(message.winners),
            )
    raise TypeError(f"not an Upwords event message: {type(message).__name__}")


BODIES = Bodies(pb.GameEvent, "Upwords")
EVENT_TYPES = BODIES.types
decode_message = BODIES.parse


class Codec(ProtoCodec[Event]):
    """The ``EventCodec`` of Upwords games: the protobuf message's full name is the type."""

    def __init__(self) -> None:
        super().__init__(BODIES, event_pb, event_of)


def shown(event: Event, viewer: int | None) -> Event:
    """The event as ``viewer`` (a seat, or None for a spectator) may see it during play.

    Their own rack and draws stay; everyone else's are removed. Where an exchanged
    tile went in the bag is bag order, which no player may see, not even the exchanger.
    """
    if isinstance(event, SeatsTaken | GameFinished):
        return event
    seen = uw.event_for(event, viewer)
    if isinstance(seen, uw.TileExchanged) and seen.position is not None:
        seen = uw.TileExchanged(seen.seat, seen.returned, seen.drawn, None)
    return seen


def public(event_type: str, data: bytes) -> bytes | None:
    """What NATS carries: the payload with every secret field cleared (for ``category_relay``)."""
    codec = Codec()
    event = codec.decode(event_type, data)
    return codec.encode(shown(event, None))[1]


def notation(event: Event, board_before: uw.Board) -> str:
    """The move of a play, pass or exchange in notation (``-?``: an exchange not shown)."""
    if isinstance(event, uw.WordPlayed):
        return format_play(board_before, event.placements)
    if isinstance(event, uw.Passed):
        return PASS
    if isinstance(event, uw.TileExchanged):
        return format_exchange(event.returned) if event.returned else "-?"
    return ""


def board_before(event: Event, after: Table[uw.UpwordsState]) -> uw.Board:
    """The board just before ``event``, from the game just after it (for the notation).

    Only a play changes the board forwards, by one tile on top of each square it names,
    so lifting those tiles off again gives the board it was played on. Replays starting
    at a later version need no fold from the start for this.
    """
    board = after.game.board
    if isinstance(event, uw.WordPlayed):
        return board.lifted((p.row, p.col) for p in event.placements)
    return board


def boards_before(events: Sequence[Event], board_after: uw.Board) -> list[uw.Board]:
    """The board before each of consecutive ``events``, walking back from the board after
    the last: a play's tiles are lifted off, a withdrawn play's tiles put back."""
    boards: list[uw.Board] = []
    board = board_after
    for event in reversed(events):
        if isinstance(event, uw.WordPlayed):
            board = board.lifted((p.row, p.col) for p in event.placements)
        elif isinstance(event, uw.PlayWithdrawn):
            board = board.placed((p.row, p.col, p.tile) for p in event.placements)
        boards.append(board)
    return boards[::-1]


def game_event_pb(event: Event, info: common_pb2.EventInfo, board_before: uw.Board) -> pb.GameEvent:
    """An event (already as the viewer may see it) with its place in the stream."""
    out: pb.GameEvent = BODIES.wrap(
        event_pb(event), info=info, notation=notation(event, board_before)
    )
    return out


def _stack_pb(tiles: tuple[str, ...]) -> pb.Stack:
    return pb.Stack(tiles=list(tiles))


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
    out = pb.Game(
        game_id=game_id,
        version=version,
        seats=[seat_pb(i, s) for i, s in enumerate(table.seats)],
        config=config_pb(v.config),
        status=(
            pb.STATUS_ENDED
            if v.phase is uw.Phase.ENDED
            else pb.STATUS_IN_PROGRESS
            if v.phase is uw.Phase.PLAYING
            else pb.STATUS_UNSPECIFIED
        ),
        to_move=v.to_move,
        seats_to_move=list(ENGINE.to_move(table.game)),
        scores=list(v.scores),
        rack_sizes=list(v.rack_sizes),
        bag_count=v.bag_count,
        passes=v.passes,
        rack=list(v.rack or ()),
        retry=v.retry,
        racks=_racks_pb(racks),
        bag=list(bag or ()),
        end_reason=v.end_reason,
        winners=list(v.winners),
        board_text=render(table.game, viewer) if table.seats else "",
        timed_out=list(table.game.out),
    )
    _BOARD.merge_into(out, v.board.stacks)
    if viewer is not None:
        out.viewer_seat = viewer
    if v.pending is not None:
        out.pending.CopyFrom(
            pb.PendingPlay(
                seat=v.pending.seat,
                placements=placements_pb(v.pending.placements),
                words=list(v.pending.words),
                score=v.pending.score,
            )
        )
    return out
