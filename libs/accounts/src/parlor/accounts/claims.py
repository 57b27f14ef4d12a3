"""Claims: who holds something that must be unique across accounts.

A handle's skeleton and an external identity (issuer, subject) are each a stream of
their own (``accounthandle-<key>``, ``accountidentity-<digest>``) whose state is the
player id holding it. The service appends a claim with the stream's expected version,
so two replicas claiming one handle at once cannot both win: the second append is a
conflict, re-read, and refused as taken.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from parlor.core.errors import AlreadyExists


@dataclass(frozen=True)
class Claimed:
    player_id: str


@dataclass(frozen=True)
class Released:
    player_id: str


ClaimEvent = Claimed | Released
CLAIM_EVENT_TYPES: dict[str, type[ClaimEvent]] = {"Claimed": Claimed, "Released": Released}


@dataclass(frozen=True)
class Claim:
    holder: str = ""
    """The player id holding it; empty: free."""


def claim(state: Claim, player_id: str, taken: AlreadyExists) -> Sequence[ClaimEvent]:
    """Claim for ``player_id``: nothing if it is theirs already, ``taken`` if another's."""
    if state.holder == player_id:
        return []
    if state.holder:
        raise taken
    return [Claimed(player_id)]


def release(state: Claim, player_id: str) -> Sequence[ClaimEvent]:
    """Let go of it, if ``player_id`` holds it."""
    return [Released(player_id)] if state.holder == player_id else []


def evolve_claim(state: Claim, event: ClaimEvent) -> Claim:
    if isinstance(event, Claimed):
        return Claim(event.player_id)
    return Claim() if state.holder == event.player_id else state
