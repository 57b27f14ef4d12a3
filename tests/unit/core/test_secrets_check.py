"""The contract's secrets check: a hidden field reaching another viewer is caught, whole or as
one seat's share of a field holding a share per seat."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated, Any

import pytest

from parlor.core.conformance import check_secrets
from parlor.core.game import Secret


@dataclass(frozen=True)
class Dealt:
    hands: Annotated[tuple[tuple[str, ...], ...], Secret]


@dataclass(frozen=True)
class Drew:
    seat: int
    tile: Annotated[str, Secret]


class Engine:
    """Shows ``public_event`` as the test's ``show`` says."""

    name = "test"

    def __init__(self, show: Any) -> None:
        self.public_event = show


def own_share(event: Dealt, viewer: int | None) -> Dealt:
    return replace(event, hands=tuple(h if s == viewer else () for s, h in enumerate(event.hands)))


DEALT = Dealt((("a", "b"), ("c",), ("d",)))


def test_a_viewer_shown_only_their_own_share_passes() -> None:
    check_secrets(Engine(own_share), DEALT, 3)  # type: ignore[arg-type]


def test_another_seats_share_shown_is_caught() -> None:
    def leaky(event: Dealt, viewer: int | None) -> Dealt:
        shown = own_share(event, viewer)
        if viewer == 1:  # seat 1 also sees seat 2's hand
            shown = replace(shown, hands=(shown.hands[0], shown.hands[1], event.hands[2]))
        return shown

    with pytest.raises(AssertionError, match=r"Dealt\.hands reaches viewer 1"):
        check_secrets(Engine(leaky), DEALT, 3)  # type: ignore[arg-type]


def test_a_share_shown_to_a_spectator_is_caught() -> None:
    def leaky(event: Dealt, viewer: int | None) -> Dealt:
        return own_share(event, 0 if viewer is None else viewer)

    with pytest.raises(AssertionError, match=r"Dealt\.hands reaches viewer None"):
        check_secrets(Engine(leaky), DEALT, 3)  # type: ignore[arg-type]


def test_a_whole_secret_shown_to_another_seat_is_caught() -> None:
    def leaky(event: Drew, viewer: int | None) -> Drew:
        return event if viewer is not None else replace(event, tile="")

    with pytest.raises(AssertionError, match=r"Drew\.tile reaches viewer 1"):
        check_secrets(Engine(leaky), Drew(0, "q"), 3)  # type: ignore[arg-type]
