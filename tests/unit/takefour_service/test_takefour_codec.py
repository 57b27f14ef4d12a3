"""The Take Four codec: lossless storage, secrets stripped for NATS and for other viewers."""

from __future__ import annotations

import re

import pytest
from google.protobuf.message import Message
from kits.takefour import playout, tile_set

from parlor.common.v1 import common_pb2
from parlor.core.decider import replay
from parlor.core.errors import InvalidArgument
from parlor.gamehost.table.seating import GameFinished, SeatsTaken, Standing, Table
from parlor.gametypes.seats import Seat
from parlor.rules import takefour as tf
from parlor.services.takefour import game as codec
from parlor.services.takefour.game import (
    Codec,
    Event,
    config_of,
    config_pb,
    export,
    game_event_pb,
    game_pb,
    public,
    rules,
)
from parlor.takefour.v1 import takefour_pb2 as pb


def games() -> list[list[Event]]:
    out: list[list[Event]] = []
    for players, seed in ((2, 1), (3, 2), (8, 3)):
        config = tf.TakeFourConfig(tiles=tile_set("A6 E6 T6 S6 R6 N6", jokers=2), target=15)
        result = playout(players, config, seed)
        seats = tuple(Seat(f"p{i}", f"P{i}") for i in range(players))
        finished = GameFinished("TARGET_SCORE", tuple(Standing(1, 0) for _ in range(players)))
        out.append([SeatsTaken(seats), *result.events, finished])
    return out


GAMES = games()


def test_every_event_is_stored_losslessly() -> None:
    codec = Codec()
    kinds: set[type] = set()
    for events in GAMES:
        for event in events:
            kinds.add(type(event))
            assert codec.decode(*codec.encode(event)) == event
    assert {tf.TilePlaced, tf.TilesDealt, tf.DoneCalled, tf.RoundScored, tf.GameEnded} <= kinds
    # A Done stored before its verdicts were recorded reads back as such (None, not "none").
    old = pb.DoneCalled(seat=1).SerializeToString()
    assert codec.decode("parlor.takefour.v1.DoneCalled", old) == tf.DoneCalled(1, None)
    assert codec.decode(*codec.encode(tf.DoneCalled(1, ()))) == tf.DoneCalled(1, ())


def test_config_zero_values_mean_the_documented_defaults() -> None:
    config = config_of(pb.Config(), "enable1-x")
    assert config == tf.TakeFourConfig(lexicon="enable1-x")
    assert config_of(config_pb(config)) == config


def test_nats_payloads_carry_no_secret_field() -> None:
    codec = Codec()
    for events in GAMES:
        for event in events:
            event_type, data = codec.encode(event)
            shown_type, shown = public(event_type, data)
            parsed = codec_message(shown_type)
            parsed.ParseFromString(shown)
            if "secret" in parsed.DESCRIPTOR.fields_by_name:
                assert not parsed.HasField("secret")
            if not isinstance(event, SeatsTaken | GameFinished) and tf.secret_fields(type(event)):
                assert shown != data


def test_the_bus_carries_every_event_as_a_spectator_sees_it_during_play() -> None:
    """Anyone on NATS reads what the relay publishes, as it happens: each event's type (its
    subject and ``Parlor-Event-Type``) and payload are those a spectator is shown."""
    store = Codec()
    swaps = [tf.JokerSwapped(seat, 1, 2, 3, 99) for seat in (0, 1)]
    for event in [e for events in GAMES for e in events] + swaps:
        event_type, data = store.encode(event)
        if isinstance(event, SeatsTaken | GameFinished):
            assert public(event_type, data) == (event_type, data)  # nothing of them is hidden
            continue
        seen, _ = codec.seen_pb(event, None, reveal=False)
        shown = (seen.DESCRIPTOR.full_name, seen.SerializeToString(deterministic=True))
        assert public(event_type, data) == shown, event


def test_the_bus_carries_a_joker_swap_as_it_carries_a_move() -> None:
    """A swap's own type on the bus would tell everyone that a joker is now in that hand: its
    type and payload are a move's (the same seat's), as the views show it."""
    store = Codec()
    for seat in (0, 3):
        swap, move = tf.JokerSwapped(seat, 1, 2, 3, 99), tf.TileMoved(seat, 1, 2, 5, 6, "E")
        moved = ("parlor.takefour.v1.TileMoved", pb.TileMoved(seat=seat).SerializeToString())
        assert public(*store.encode(swap)) == public(*store.encode(move)) == moved


def codec_message(event_type: str) -> Message:
    return codec._TYPES[event_type]()


@pytest.mark.parametrize("viewer", [None, 0, 1])
def test_a_viewer_sees_only_their_own_secrets_until_the_end(viewer: int | None) -> None:
    for events in GAMES:
        for event in events:
            shown = game_event_pb(event, common_pb2.EventInfo(), viewer, reveal=False)
            body = getattr(shown, shown.WhichOneof("body"))
            if isinstance(event, tf.TilePlaced | tf.TileMoved | tf.TileTakenBack | tf.JokerSwapped):
                assert body.HasField("secret") == (event.seat == viewer)
                assert (shown.change != pb.GRID_CHANGE_UNSPECIFIED) == (event.seat != viewer)
            elif isinstance(event, tf.RoundStarted | tf.DoneCalled):
                assert not body.HasField("secret")
            elif isinstance(event, tf.TilesDealt):
                hands = [list(h.tiles) for h in body.secret.hands]
                assert not body.secret.unused
                for seat, hand in enumerate(hands):
                    assert hand == (list(event.hands[seat]) if seat == viewer else [])
            elif isinstance(event, tf.RoundScored):
                for seat, cells in enumerate(body.secret.removed):
                    expected = event.removed[seat] if seat == viewer else ()
                    assert [(c.x, c.y) for c in cells.cells] == list(expected)


def test_the_game_view_shows_only_the_viewers_hand_and_grid() -> None:
    events = GAMES[1]
    # Stop mid-round: after the first placement.
    cut = next(i for i, e in enumerate(events) if isinstance(e, tf.TilePlaced)) + 1
    table: Table[tf.TakeFourState] = replay(rules(), events[:cut])
    for viewer in (None, 0, 1, 2):
        game = game_pb("g", cut, table, viewer)
        for seat in game.seats:
            mine = seat.seat.index == viewer
            assert seat.visible == mine
            assert bool(seat.hand) == (mine and seat.in_hand > 0)
            assert bool(seat.grid) == (mine and seat.on_grid > 0)


def test_export_writes_one_line_per_event_with_every_secret() -> None:
    events = GAMES[0]
    text = export("g1", "enable1-x", events)
    assert text.startswith('[Game "takefour"]\n[GameId "g1"]\n')
    assert text.count("\nR") >= 1
    placed = [e for e in events if isinstance(e, tf.TilePlaced)]
    assert text.count(" place ") == len(placed)
    assert text.rstrip().splitlines()[-1].startswith("finished TARGET_SCORE")
    assert re.search(r"^s\d done words [A-Z,]+$", text, re.M)


def test_a_config_stored_without_a_rules_version_is_read_as_rules_1() -> None:
    """Games created before versions were recorded keep the reading they were decided by."""
    codec = Codec()
    old = pb.GameCreated(config=pb.Config(), seats=["a", "b"]).SerializeToString()
    created = codec.decode("parlor.takefour.v1.GameCreated", old)
    assert isinstance(created, tf.GameCreated)
    assert created.config.rules == 1
    assert codec.decode(*codec.encode(created)) == created  # stored again, still 1
    new = tf.GameCreated(tf.TakeFourConfig(), ("a", "b"))
    assert config_pb(new.config).rules_version == tf.RULES_VERSION
    assert codec.decode(*codec.encode(new)) == new
    # A request's 0 is the current version, and a new game is played by no other.
    assert config_of(pb.Config()).rules == tf.RULES_VERSION
    assert config_of(pb.Config(rules_version=tf.RULES_VERSION)).rules == tf.RULES_VERSION
    with pytest.raises(InvalidArgument) as refused:
        config_of(pb.Config(rules_version=1))
    assert refused.value.reason == "UNSUPPORTED_RULES_VERSION"
    assert config_of(pb.Config(rules_version=1), recorded=True).rules == 1  # replays keep it


def test_a_done_with_tiles_in_hand_says_how_many_to_every_viewer() -> None:
    store = Codec()
    done = tf.DoneCalled(1, ("CAT",), in_hand=3)
    assert store.decode(*store.encode(done)) == done
    for viewer in (0, 1, None):
        seen, _ = codec.seen_pb(done, viewer, reveal=False)
        assert isinstance(seen, pb.DoneCalled)
        assert (seen.seat, seen.in_hand, seen.HasField("secret")) == (1, 3, False)
    stripped = pb.DoneCalled.FromString(public(*store.encode(done))[1])
    assert (stripped.in_hand, stripped.HasField("secret")) == (3, False)


def test_a_joker_swap_reaches_others_as_a_move_does() -> None:
    """Type, body and change of a swap, as another seat or a spectator gets it, are those
    of a move: only its owner (or anyone, once the game is over) learns a joker moved."""
    swap, move = tf.JokerSwapped(0, 1, 2, 3, 4), tf.TileMoved(0, 1, 2, 5, 6, "E")
    swapped = common_pb2.EventInfo(version=7, type="parlor.takefour.v1.JokerSwapped")
    moved = common_pb2.EventInfo(version=7, type="parlor.takefour.v1.TileMoved")
    for viewer in (1, None):
        shown = game_event_pb(swap, swapped, viewer, reveal=False)
        assert shown == game_event_pb(move, moved, viewer, reveal=False)
        assert (shown.WhichOneof("body"), shown.change) == ("tile_moved", pb.GRID_CHANGE_MOVED)
        assert shown.info.type == "parlor.takefour.v1.TileMoved"
    for viewer, reveal in ((0, False), (1, True), (None, True)):
        whole = game_event_pb(swap, swapped, viewer, reveal=reveal)
        assert whole.WhichOneof("body") == "joker_swapped"
        assert whole.joker_swapped.secret.joker == 4
        assert whole.info.type == "parlor.takefour.v1.JokerSwapped"
