"""Who may be seated, and which recorded games count as agreed by every seated human."""

from __future__ import annotations

import pytest

from parlor.common.v1 import common_pb2
from parlor.core.errors import PermissionDenied
from parlor.gametypes.seats import Seat
from parlor.kit.auth import Identity
from parlor.matchmaking.v1 import events_pb2
from parlor.matchrecords.consent import CONSENT, agreed, match_consent, seat_consent

ADA = Identity("ada")


def test_a_player_seats_themselves_and_bots_and_the_record_says_so() -> None:
    assert seat_consent((Seat("ada"), Seat("bot:random")), ADA) == {CONSENT: "creator"}
    assert seat_consent((Seat("ada"), Seat("ada")), ADA) == {CONSENT: "creator"}


def test_a_player_seating_anyone_else_is_refused_naming_them() -> None:
    with pytest.raises(PermissionDenied) as refused:
        seat_consent((Seat("ada"), Seat("bob")), ADA)
    assert refused.value.reason == "SEAT_NOT_CONSENTED"
    assert "'bob'" in str(refused.value)


def test_a_service_vouches_for_the_players_it_seats() -> None:
    service = Identity("service:tournaments", roles=("service",))
    record = seat_consent((Seat("ada"), Seat("bob")), service)
    assert record == {CONSENT: "service"}
    # Rated only if the service is one scoring believes (issue 15: a game service's own key
    # must not vouch for players); tournaments are not on the list yet.
    assert not agreed(record, service.player_id, ("ada", "bob"))
    assert agreed(record, "service:matchmaking", ("ada", "bob"))
    assert not agreed(record, "service:upwords", ("ada", "bob"))


M1 = events_pb2.MatchFormed(
    match_id="m1",
    game_type="upwords",
    seats=[common_pb2.Seat(index=0, player_id="ada"), common_pb2.Seat(index=1, player_id="bob")],
)


@pytest.mark.parametrize(
    ("match", "game", "players", "expected"),
    [
        (M1, ("upwords", "m1"), ("ada", "bob"), True),
        (None, ("upwords", "m1"), ("ada", "bob"), False),  # the store holds no such match
        (M1, ("upwords", "m2"), ("ada", "bob"), False),  # another game claims the match
        (M1, ("takefour", "m1"), ("ada", "bob"), False),  # of another game type
        (M1, ("upwords", "m1"), ("ada", "cy"), False),  # other seats
        (M1, ("upwords", "m1"), ("bob", "ada"), False),  # the match's seat order is the game's
        (M1, ("upwords", "m1"), ("ada", "bob", "cy"), False),
    ],
)
def test_a_match_record_counts_only_for_the_match_the_store_holds(
    match: events_pb2.MatchFormed | None,
    game: tuple[str, str],
    players: tuple[str, ...],
    expected: bool,
) -> None:
    assert agreed(match_consent("m1"), "matchmaking", players, match, game) is expected
    other = events_pb2.MatchFormed()
    other.CopyFrom(M1)
    other.match_id = "m9"  # a record for another match than the one claimed
    assert not agreed(match_consent("m1"), "matchmaking", players, other, game)


@pytest.mark.parametrize(
    ("extra", "actor", "players", "expected"),
    [
        ({CONSENT: "creator"}, "ada", ("ada", "bot:random"), True),
        ({CONSENT: "creator"}, "ada", ("ada", "bob"), False),  # a record that lies is no proof
        ({CONSENT: "creator"}, None, ("ada",), False),
        ({CONSENT: "match:"}, "matchmaking", ("ada", "bob"), False),
        ({CONSENT: "service"}, None, ("ada", "bob"), False),
        ({}, "ada", ("ada", "bob"), False),  # written before the rule, or by anything else
        ({}, "ada", ("ada", "bot:random"), False),
        ({CONSENT: "whatever"}, "ada", ("ada", "bob"), False),
    ],
)
def test_only_a_record_of_every_human_agreeing_counts(
    extra: dict[str, str], actor: str | None, players: tuple[str, ...], expected: bool
) -> None:
    assert agreed(extra, actor, players) is expected
