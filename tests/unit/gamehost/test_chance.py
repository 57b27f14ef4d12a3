"""A service's chance steps: a shuffle keeps every item and draws its order."""

from __future__ import annotations

from parlor.gamehost.record.chance import shuffled


def test_a_shuffle_keeps_every_item_and_draws_its_order() -> None:
    drawn = {shuffled(range(6)) for _ in range(200)}
    assert all(sorted(order) == list(range(6)) for order in drawn)
    assert len(drawn) > 100  # 720 orders: 200 draws from a fixed order would give one
    assert shuffled([]) == ()
