"""Guest ids claimed by accounts: the one fact scoring needs to give a guest's games to an
account.

Each guest id has a stream of its own (``accountguest-<guest id>``) holding at most one
event, ``GuestIdClaimed``: which account took it and when. It is appended with the
expected version "no stream", so a guest id is claimed once, ever, by one account (of two
claims at once, one is a conflict and refused). It is never released: the games, ratings
and scoresheets follow it, and replaying the history must give them to the same account
every time. It names two player ids and nothing personal, so it is relayed to the bus,
where scoring learns of it (``parlor.events.accountguest.<guest id>.GuestIdClaimed``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from parlor.core.errors import AlreadyExists

GUEST_CLAIM_CATEGORY = "accountguest"
ACCOUNT_CATEGORY = "account"
"""An account's own stream is ``account-<player id>``."""
PLAYER_PREFIX = "acct-"
"""Every account's player id starts so (guests' ``guest-``, bots' ``bot:``)."""


@dataclass(frozen=True)
class GuestIdClaimed:
    guest_id: str
    player_id: str
    """The account's player id."""
    claimed_at: int


GUEST_EVENT_TYPES: dict[str, type[GuestIdClaimed]] = {"GuestIdClaimed": GuestIdClaimed}


def guest_claim_stream(guest_id: str) -> str:
    return f"{GUEST_CLAIM_CATEGORY}-{guest_id}"


def claim_guest_id(
    held: GuestIdClaimed | None, guest_id: str, player_id: str, now: int
) -> Sequence[GuestIdClaimed]:
    """Claim ``guest_id`` for ``player_id``; refused if anyone (even this account) has."""
    if held is not None:
        raise AlreadyExists(
            "this guest id was claimed already"
            + (" by this account" if held.player_id == player_id else " by another account"),
            reason="GUEST_CLAIMED",
        )
    return [GuestIdClaimed(guest_id, player_id, now)]


def canonical(aliases: Mapping[str, str], player_id: str) -> str:
    """The id a player's results count under: the claiming account's for a claimed guest."""
    return aliases.get(player_id, player_id)


def guests_claimed(events: Iterable[tuple[str, bytes]]) -> list[str]:
    """The guest ids an account's stream (its events as type name and JSON) records as
    claimed, in order: what a reader outside the identity service (the game directory)
    takes for the account's own ids besides its player id."""
    return [str(json.loads(data)["guest_id"]) for kind, data in events if kind == "GuestClaimed"]
