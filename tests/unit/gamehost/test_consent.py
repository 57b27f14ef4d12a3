"""Who may be seated, and which recorded games count as agreed by every seated human."""

from __future__ import annotations

import pytest

from parlor.core.errors import PermissionDenied
from parlor.gamehost.consent import CONSENT, agreed, match_consent, seat_consent
from parlor.gamehost.seating import Seat
from parlor.kit.auth import Identity

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
    assert agreed(record, service.player_id, ("ada", "bob"))


@pytest.mark.parametrize(
    ("extra", "actor", "players", "expected"),
    [
        ({CONSENT: "creator"}, "ada", ("ada", "bot:random"), True),
        ({CONSENT: "creator"}, "ada", ("ada", "bob"), False),  # a record that lies is no proof
        ({CONSENT: "creator"}, None, ("ada",), False),
        (match_consent("m1"), "matchmaking", ("ada", "bob"), True),
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
