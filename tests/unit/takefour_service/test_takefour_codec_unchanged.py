"""Take Four's codec writes and reads every event, and shows it to each viewer, as before.

The ``old_`` functions below are the hand-written codec the generic mapping
(``parlor.gamehost.wire.messages``) replaced, kept as the reference: stored events, replays,
``parlor verify`` and command-id fingerprints depend on the bytes staying the same.
"""

from __future__ import annotations

import functools
import random
import re
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kits.codecs import assert_same, instances
from kits.takefour import chooser, crc_word, playout, tile_set

from parlor.core.conformance import random_playout
from parlor.core.errors import InvalidArgument
from parlor.gamehost.table.codec import seat_pb, table_event_of, table_event_pb
from parlor.gamehost.table.seating import GameFinished, SeatsTaken, Standing, Table
from parlor.gametypes.seats import Seat
from parlor.rules import takefour as tf
from parlor.rules.takefour.contract import ENGINE
from parlor.rules.takefour.state import RoundResult
from parlor.rules.takefour.tiles import STANDARD_TILES
from parlor.rules.takefour.view import (
    DoneCalledSeen,
    GridChanged,
    RoundScoredSeen,
    RoundStartedSeen,
    SeenEvent,
    TilesDealtSeen,
    Viewer,
)
from parlor.services.takefour import game as codec
from parlor.takefour.v1 import takefour_pb2 as pb

GAME_TYPE = "takefour"

# --- the reference: the codec before the generic mapping ----------------------------------

CHECKING = {"honor": pb.CHECKING_HONOR, "auto": pb.CHECKING_AUTO}
CHECKING_BACK = {v: k for k, v in CHECKING.items()}
PHASE = {
    tf.Phase.BETWEEN_ROUNDS: pb.PHASE_BETWEEN_ROUNDS,
    tf.Phase.PLAYING: pb.PHASE_PLAYING,
    tf.Phase.OVER: pb.PHASE_OVER,
}
DEAL = {
    "start": pb.DEAL_KIND_START,
    "take_four": pb.DEAL_KIND_TAKE_FOUR,
    "stalemate": pb.DEAL_KIND_STALEMATE,
    "last": pb.DEAL_KIND_LAST,
}
DEAL_BACK = {v: k for k, v in DEAL.items()}
CHANGE = {
    "placed": pb.GRID_CHANGE_PLACED,
    "moved": pb.GRID_CHANGE_MOVED,
    "taken_back": pb.GRID_CHANGE_TAKEN_BACK,
    "joker_swapped": pb.GRID_CHANGE_JOKER_SWAPPED,
}

DEFAULT_TARGET = 100
DEFAULT_DEAL_SIZE = 4


# --- config -------------------------------------------------------------------------------


def old_tiles_pb(tiles: tf.TileSet) -> pb.TileSet:
    return pb.TileSet(
        letters=[
            pb.LetterTiles(letter=s.letter, count=s.count, value=s.value) for s in tiles.letters
        ],
        jokers=tiles.jokers,
        joker_value=tiles.joker_value,
    )


def old_tiles_of(message: pb.TileSet) -> tf.TileSet:
    if not message.letters and not message.jokers:
        return STANDARD_TILES
    return tf.TileSet(
        letters=tuple(tf.LetterTiles(s.letter, s.count, s.value) for s in message.letters),
        jokers=message.jokers,
        joker_value=message.joker_value,
    )


def old_config_pb(config: tf.TakeFourConfig) -> pb.Config:
    return pb.Config(
        tiles=old_tiles_pb(config.tiles),
        checking=CHECKING[config.checking],
        target=config.target,
        max_rounds=config.max_rounds or 0,
        deal_size=config.deal_size,
        lexicon=config.lexicon,
        rules_version=config.rules,
    )


RECORDED_BEFORE_VERSIONS = 1
"""The rules version of a stored game whose config has none: it was created before them."""


def old_config_of(
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
        tiles=old_tiles_of(message.tiles),
        checking=cast(Any, CHECKING_BACK.get(message.checking, "honor")),
        target=message.target or DEFAULT_TARGET,
        max_rounds=message.max_rounds or None,
        deal_size=message.deal_size or DEFAULT_DEAL_SIZE,
        lexicon=lexicon if lexicon is not None else message.lexicon,
        rules=message.rules_version or unset,
    )


def _cells(cells: tuple[tuple[int, int], ...]) -> pb.Cells:
    return pb.Cells(cells=[pb.Cell(x=x, y=y) for x, y in cells])


# --- events, whole (what the store keeps) ---------------------------------------------------


def old_event_pb(event: Any) -> Any:
    """The protobuf message an event is stored as, secrets included."""
    common = table_event_pb(event, GAME_TYPE)
    if common is not None:
        return common
    match event:
        case tf.GameCreated(config, seats):
            return pb.GameCreated(config=old_config_pb(config), seats=seats)
        case tf.RoundStarted(number, bag):
            return pb.RoundStarted(
                round=number, bag_size=len(bag), secret=pb.RoundStartedSecret(bag=bag)
            )
        case tf.TilesDealt(number, kind, hands, unused, bag_left):
            return pb.TilesDealt(
                round=number,
                kind=DEAL[kind],
                counts=event.counts,
                unused_count=len(unused),
                bag_left=bag_left,
                secret=pb.TilesDealtSecret(hands=[pb.Hand(tiles=h) for h in hands], unused=unused),
            )
        case tf.TilePlaced(seat, tile, x, y, letter):
            secret = pb.TilePlacedSecret(tile=tile, x=x, y=y, letter=letter)
            return pb.TilePlaced(seat=seat, secret=secret)
        case tf.TileMoved(seat, fx, fy, tx, ty, letter):
            moved = pb.TileMovedSecret(from_x=fx, from_y=fy, to_x=tx, to_y=ty, letter=letter)
            return pb.TileMoved(seat=seat, secret=moved)
        case tf.TileTakenBack(seat, x, y, tile):
            back = pb.TileTakenBackSecret(x=x, y=y, tile=tile)
            return pb.TileTakenBack(seat=seat, secret=back)
        case tf.JokerSwapped(seat, x, y, tile, joker):
            swap = pb.JokerSwappedSecret(x=x, y=y, tile=tile, joker=joker)
            return pb.JokerSwapped(seat=seat, secret=swap)
        case tf.TakeFourCalled(seat):
            return pb.TakeFourCalled(seat=seat)
        case tf.DealAgreed(seat):
            return pb.DealAgreed(seat=seat)
        case tf.AgreementWithdrawn(seat):
            return pb.AgreementWithdrawn(seat=seat)
        case tf.SeatIdle(seat):
            return pb.SeatIdle(seat=seat)
        case tf.SeatForfeited(seat, reason):
            return pb.SeatForfeited(seat=seat, reason=reason)
        case tf.DoneCalled(seat, accepted, in_hand):
            done = pb.DoneCalled(seat=seat, in_hand=in_hand)
            if accepted is not None:
                done.secret.SetInParent()  # present even when no word was accepted
                done.secret.accepted.extend(accepted)
            return done
        case tf.RoundScored(number, done_seat, done_valid, scores, totals, removed):
            return pb.RoundScored(
                round=number,
                done_seat=done_seat,
                done_valid=done_valid,
                scores=scores,
                totals=totals,
                secret=pb.RoundScoredSecret(removed=[_cells(r) for r in removed]),
            )
        case tf.GameEnded(totals, winners):
            return pb.GameEnded(totals=totals, winners=winners)
    raise TypeError(f"not a Take Four event: {event!r}")


def old_event_of(message: Any) -> Any:
    m: Any = message
    common = table_event_of(message)
    if common is not None:
        return common
    match message:
        case pb.GameCreated():
            return tf.GameCreated(old_config_of(m.config, recorded=True), tuple(m.seats))
        case pb.RoundStarted():
            return tf.RoundStarted(m.round, tuple(m.secret.bag))
        case pb.TilesDealt():
            return tf.TilesDealt(
                m.round,
                cast(Any, DEAL_BACK[m.kind]),
                tuple(tuple(h.tiles) for h in m.secret.hands),
                tuple(m.secret.unused),
                m.bag_left,
            )
        case pb.TilePlaced():
            s = m.secret
            return tf.TilePlaced(m.seat, s.tile, s.x, s.y, s.letter)
        case pb.TileMoved():
            s = m.secret
            return tf.TileMoved(m.seat, s.from_x, s.from_y, s.to_x, s.to_y, s.letter)
        case pb.TileTakenBack():
            s = m.secret
            return tf.TileTakenBack(m.seat, s.x, s.y, s.tile)
        case pb.JokerSwapped():
            s = m.secret
            return tf.JokerSwapped(m.seat, s.x, s.y, s.tile, s.joker)
        case pb.TakeFourCalled():
            return tf.TakeFourCalled(m.seat)
        case pb.DealAgreed():
            return tf.DealAgreed(m.seat)
        case pb.AgreementWithdrawn():
            return tf.AgreementWithdrawn(m.seat)
        case pb.SeatIdle():
            return tf.SeatIdle(m.seat)
        case pb.SeatForfeited():
            return tf.SeatForfeited(m.seat, m.reason)
        case pb.DoneCalled():
            accepted = tuple(m.secret.accepted) if m.HasField("secret") else None
            return tf.DoneCalled(m.seat, accepted, m.in_hand)
        case pb.RoundScored():
            removed = tuple(tuple((c.x, c.y) for c in r.cells) for r in m.secret.removed)
            return tf.RoundScored(
                m.round, m.done_seat, m.done_valid, tuple(m.scores), tuple(m.totals), removed
            )
        case pb.GameEnded():
            return tf.GameEnded(tuple(m.totals), tuple(m.winners))
    raise TypeError(f"not a Take Four event message: {type(message).__name__}")


# --- events as one viewer sees them ---------------------------------------------------------


def old_seen_pb(event: Any, viewer: Viewer, reveal: bool) -> tuple[Any, int]:
    """The message ``viewer`` may see of ``event`` (through the engine's ``public_event``)."""
    if isinstance(event, SeatsTaken | GameFinished):
        return old_event_pb(event), pb.GRID_CHANGE_UNSPECIFIED
    seen: SeenEvent = tf.public_event(event, viewer, reveal=reveal)
    full: Any = old_event_pb(event)
    match seen:
        case RoundStartedSeen(number, bag_size):
            return pb.RoundStarted(round=number, bag_size=bag_size), pb.GRID_CHANGE_UNSPECIFIED
        case TilesDealtSeen(number, kind, counts, unused_count, bag_left, own):
            dealt = pb.TilesDealt(
                round=number,
                kind=DEAL[kind],
                counts=counts,
                unused_count=unused_count,
                bag_left=bag_left,
            )
            if viewer is not None:
                dealt.secret.hands.extend(
                    pb.Hand(tiles=own if seat == viewer else ()) for seat in range(len(counts))
                )
            return dealt, pb.GRID_CHANGE_UNSPECIFIED
        case GridChanged(seat, change):
            # Others have seen a joker swap as a move since the rules audit (it changes no
            # count, and naming it told them a joker was now in the hand).
            shape = pb.TileMoved if isinstance(event, tf.JokerSwapped) else type(full)
            return shape(seat=seat), CHANGE[change]
        case DoneCalledSeen(seat, in_hand):
            return pb.DoneCalled(seat=seat, in_hand=in_hand), pb.GRID_CHANGE_UNSPECIFIED
        case RoundScoredSeen(number, done_seat, done_valid, scores, totals, own_removed):
            scored = pb.RoundScored(
                round=number,
                done_seat=done_seat,
                done_valid=done_valid,
                scores=scores,
                totals=totals,
            )
            if viewer is not None:
                scored.secret.removed.extend(
                    _cells(own_removed if seat == viewer else ()) for seat in range(len(scores))
                )
            return scored, pb.GRID_CHANGE_UNSPECIFIED
    return full, pb.GRID_CHANGE_UNSPECIFIED


# --- the game as one viewer sees it ---------------------------------------------------------


def _result_pb(result: RoundResult) -> pb.RoundResult:
    return pb.RoundResult(round=result.round, done_seat=result.done_seat, scores=result.scores)


def old_game_pb(
    game_id: str,
    version: int,
    table: Table[tf.TakeFourState],
    viewer: Viewer,
    reveal: bool = False,
) -> pb.Game:
    """The game as ``viewer`` sees it; ``reveal`` (a finished game replayed) shows everything."""
    state = table.game
    out = pb.Game(game_id=game_id, version=version)
    if state.phase is tf.Phase.NOT_CREATED:
        return out
    seen = tf.view(state, viewer, reveal=reveal)
    tiles = state.config.tiles
    out.config.CopyFrom(old_config_pb(seen.config))
    out.phase = cast(Any, PHASE[seen.phase])
    out.round = seen.round
    out.bag_count = seen.bag_count
    out.unused_count = seen.unused_count
    out.seats_to_move.extend(ENGINE.to_move(state))
    for s in seen.seats:
        seat = table.seats[s.seat] if s.seat < len(table.seats) else Seat(s.player_id)
        item = pb.SeatView(
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
            item.hand.extend(pb.Tile(id=t, face=tiles.face(t)) for t in s.hand)
        if s.grid is not None:
            item.grid.extend(
                pb.GridTile(x=x, y=y, tile=p.tile, letter=p.letter, joker=tiles.is_joker(p.tile))
                for (x, y), p in sorted(s.grid.items(), key=lambda kv: (kv[0][1], kv[0][0]))
            )
        out.seats.append(item)
    out.results.extend(_result_pb(r) for r in seen.results)
    if viewer is not None:
        out.viewer_seat = viewer
    outcome = tf.TAKE_FOUR.result(state)
    if outcome is not None:
        out.winners.extend(outcome.winners)
    out.board_text = tf.render(state, viewer, reveal=reveal)
    return out


# --- the corpus ------------------------------------------------------------------------------


@functools.cache
def played() -> list[tuple[tf.TakeFourState, Any]]:
    """Random games of 2, 3 and 8 seats (honor games to their ends, an auto-checked one for
    400 steps: joker swaps), each event with the state just after it."""
    tiles = tile_set("A6 E6 T6 S6 R6 N6", jokers=2)
    games = [
        playout(players, tf.TakeFourConfig(tiles=tiles, target=15, max_rounds=rounds), seed)
        for players, seed, rounds in ((2, 1, None), (3, 2, None), (8, 3, None), (2, 4, 3))
    ]
    auto = tf.TakeFourConfig(tiles=tiles, checking="auto", target=15)
    setup = [tf.CreateGame(auto, ("p0", "p1"))]
    rng = random.Random(3)
    games.append(random_playout(tf.TAKE_FOUR, setup, chooser(crc_word), lambda s: None, rng, 400))
    out: list[tuple[tf.TakeFourState, Any]] = []
    for game in games:
        state = tf.TAKE_FOUR.initial_state()
        for event in game.events:
            state = tf.TAKE_FOUR.evolve(state, event)
            out.append((state, event))
    return out


SEATS = SeatsTaken((Seat("a", "Ada"), Seat("b", "Bo")))
FINISHED = GameFinished("TARGET_SCORE", (Standing(1, 15), Standing(2, 3)))
OLD = (old_event_pb, old_event_of)
NEW = (codec.event_pb, codec.event_of)
CONFIGS = st.builds(
    tf.TakeFourConfig,
    tiles=st.just(STANDARD_TILES) | instances(tf.TileSet, {int: st.integers(0, 1000)}),
    checking=st.sampled_from(["honor", "auto"]),
    target=st.integers(0, 500),
    max_rounds=st.none() | st.integers(0, 9),
    deal_size=st.integers(0, 9),
    lexicon=st.sampled_from(["", "enable1"]),
    rules=st.integers(0, tf.RULES_VERSION),
)


def test_every_event_of_real_games_is_written_and_read_as_before() -> None:
    seen: set[type] = set()
    for _, event in played():
        seen.add(type(event))
        assert_same(event, OLD, NEW)
    for event in (SEATS, FINISHED):
        assert_same(event, OLD, NEW)
    assert seen >= set(tf.TakeFourEvent.__args__) - {tf.SeatIdle, tf.SeatForfeited}
    for event in (tf.SeatIdle(1), tf.SeatForfeited(0, "TIMED_OUT"), tf.DoneCalled(1)):
        assert_same(event, OLD, NEW)


@pytest.mark.parametrize("event_type", tf.TakeFourEvent.__args__, ids=lambda t: t.__name__)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_any_event_is_written_and_read_as_before(event_type: type, data: st.DataObject) -> None:
    event = data.draw(instances(event_type, {tf.TakeFourConfig: CONFIGS}))
    assert_same(event, OLD, NEW, exact=False)


def test_each_viewer_is_shown_each_event_as_before() -> None:
    for _, event in [*played()[::3], (None, SEATS), (None, FINISHED)]:
        for viewer in (None, 0, 1):
            for reveal in (False, True):
                new, change = codec.seen_pb(event, viewer, reveal)
                old, old_change = old_seen_pb(event, viewer, reveal)
                assert type(new) is type(old)
                assert new.SerializeToString(deterministic=True) == old.SerializeToString(
                    deterministic=True
                )
                assert change == old_change


@settings(max_examples=200, deadline=None)
@given(config=CONFIGS)
def test_configs_are_as_before(config: tf.TakeFourConfig) -> None:
    assert codec.config_pb(config) == old_config_pb(config)
    assert codec.tiles_pb(config.tiles) == old_tiles_pb(config.tiles)
    message = old_config_pb(config)
    assert codec.config_of(message, recorded=True) == old_config_of(message, recorded=True)
    assert codec.tiles_of(message.tiles) == old_tiles_of(message.tiles)
    try:
        expected: object = old_config_of(message, "x")
    except InvalidArgument as refused:
        with pytest.raises(InvalidArgument, match=re.escape(str(refused))):
            codec.config_of(message, "x")
    else:
        assert codec.config_of(message, "x") == expected


def test_the_game_each_viewer_sees_is_as_before() -> None:
    seats = tuple(Seat(f"p{i}", f"P{i}") for i in range(8))
    states = [tf.TAKE_FOUR.initial_state(), *(state for state, _ in played()[::4])]
    for state in states:
        table = Table(seats[: len(state.seats)], state)
        for viewer in (None, 0, 1):
            for reveal in (False, True):
                new = codec.game_pb("g", 3, table, viewer, reveal)
                assert new == old_game_pb("g", 3, table, viewer, reveal)
