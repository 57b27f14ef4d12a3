"""The Upwords codec: every event survives storage, and what is published holds no secret."""

from __future__ import annotations

import random

import pytest

from parlor.core.decider import execute
from parlor.gamehost.table.seating import GameFinished, SeatsTaken, Standing
from parlor.gametypes.seats import Seat
from parlor.rules import upwords as uw
from parlor.services.upwords.game import Codec, Event, decode_message, public, shown
from parlor.upwords.v1 import upwords_pb2 as pb

SECRET_FIELDS = {
    "parlor.upwords.v1.GameCreated": ("racks", "bag"),
    "parlor.upwords.v1.TilesDrawn": ("drawn",),
    "parlor.upwords.v1.TileExchanged": ("returned", "drawn", "position"),
}


def sample_events() -> list[Event]:
    """A short real game: created, a play with its draw, an exchange, a challenge, the end."""
    rng = random.Random(7)
    draw, bag = list(uw.full_bag()), list(uw.full_bag())
    rng.shuffle(draw)
    rng.shuffle(bag)
    config = uw.UpwordsConfig(word_checking=uw.WordChecking.CHALLENGE, lexicon="enable1-x")
    state = uw.UPWORDS.initial_state()
    state, events = execute(
        uw.UPWORDS, state, uw.CreateGame(config, ("a", "b"), tuple(draw), tuple(bag))
    )
    out: list[Event] = [SeatsTaken((Seat("a", "A"), Seat("b", "B"))), *events]
    seat = state.to_move
    rack = state.racks[seat]
    play = uw.Play(seat, (uw.Placement(4, 4, rack[0]), uw.Placement(4, 5, rack[1])))
    state, events = execute(uw.UPWORDS, state, play)
    out += events
    other = state.to_move
    state, events = execute(
        uw.UPWORDS, state, uw.Challenge(other, dict.fromkeys(state.pending.words, True))
    )  # type: ignore[union-attr]
    out += events
    state, events = execute(uw.UPWORDS, state, uw.Exchange(other, state.racks[other][0], 3))
    out += events
    state, events = execute(uw.UPWORDS, state, uw.Resign(seat))
    out += events
    out.append(GameFinished("RESIGNED", (Standing(2, 0), Standing(1, 0))))
    return out


@pytest.fixture(scope="module")
def events() -> list[Event]:
    return sample_events()


def test_every_event_survives_encode_and_decode(events: list[Event]) -> None:
    codec = Codec()
    kinds = {type(e).__name__ for e in events}
    assert {"GameCreated", "WordPlayed", "TilesDrawn", "TileExchanged", "GameEnded"} <= kinds
    for event in events:
        assert codec.decode(*codec.encode(event)) == event


def test_published_payloads_carry_no_rack_bag_or_draw(events: list[Event]) -> None:
    codec = Codec()
    for event in events:
        event_type, data = codec.encode(event)
        published_type, published = public(event_type, data)
        assert published_type == event_type
        message = decode_message(event_type, published)
        for name in SECRET_FIELDS.get(event_type, ()):
            assert (
                not message.HasField(name) if name == "position" else not getattr(message, name)
            ), (event_type, name)
        # counts stay public
        if isinstance(message, pb.TilesDrawn):
            assert message.count > 0
        if isinstance(message, pb.GameCreated):
            assert message.bag_count == 100 - 14


def test_a_seat_sees_its_own_rack_and_draws_but_never_the_bag_order(
    events: list[Event],
) -> None:
    created = next(e for e in events if isinstance(e, uw.GameCreated))
    assert created.racks is not None
    for seat in (0, 1):
        mine = shown(created, seat)
        assert isinstance(mine, uw.GameCreated)
        assert mine.bag is None
        assert mine.racks is not None
        assert mine.racks[seat] == created.racks[seat]
        assert mine.racks[1 - seat] is None
    exchanged = next(e for e in events if isinstance(e, uw.TileExchanged))
    own = shown(exchanged, exchanged.seat)
    assert isinstance(own, uw.TileExchanged)
    assert own.returned == exchanged.returned
    assert own.position is None
    theirs = shown(exchanged, 1 - exchanged.seat)
    assert isinstance(theirs, uw.TileExchanged)
    assert theirs.returned is None
    assert theirs.drawn is None


def test_a_published_payload_is_the_event_as_no_seat_sees_it_encoded(events: list[Event]) -> None:
    """Type and payload: what NATS carries is what a spectator is shown during play."""
    codec = Codec()
    for event in events:
        event_type, data = codec.encode(event)
        assert public(event_type, data) == codec.encode(shown(event, None)), event_type
