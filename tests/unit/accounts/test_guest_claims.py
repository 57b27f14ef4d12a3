"""A guest id's claim: taken once, ever, by one account; the alias map scoring applies."""

from __future__ import annotations

import pytest

from parlor.accounts import (
    GUEST_EVENT_TYPES,
    AccountCreated,
    GuestClaimed,
    GuestIdClaimed,
    canonical,
    claim_guest_id,
    decode,
    encode,
    guest_claim_stream,
    guests_claimed,
)
from parlor.core.errors import AlreadyExists

GUEST = "guest-0123456789abcdef"


def test_a_free_guest_id_is_claimed_and_round_trips() -> None:
    events = claim_guest_id(None, GUEST, "acct-1", 10)
    assert events == [GuestIdClaimed(GUEST, "acct-1", 10)]
    assert decode(GUEST_EVENT_TYPES, *encode(events[0])) == events[0]
    assert guest_claim_stream(GUEST) == f"accountguest-{GUEST}"


@pytest.mark.parametrize("holder", ["acct-1", "acct-2"])
def test_a_claimed_guest_id_is_refused_to_everyone(holder: str) -> None:
    with pytest.raises(AlreadyExists) as error:
        claim_guest_id(GuestIdClaimed(GUEST, holder, 10), GUEST, "acct-1", 11)
    assert error.value.reason == "GUEST_CLAIMED"


def test_canonical_ids_map_claimed_guests_only() -> None:
    aliases = {GUEST: "acct-1"}
    assert canonical(aliases, GUEST) == "acct-1"
    assert canonical(aliases, "guest-ffffffffffffffff") == "guest-ffffffffffffffff"
    assert canonical(aliases, "bot:greedy") == "bot:greedy"


def test_an_accounts_claimed_guests_are_read_from_its_events() -> None:
    events = [
        encode(AccountCreated("acct-1", 1, "")),
        encode(GuestClaimed(GUEST, 2)),
        encode(GuestClaimed("guest-ffffffffffffffff", 3)),
    ]
    assert guests_claimed(events) == [GUEST, "guest-ffffffffffffffff"]
