"""How a relay's parts are shared among its replicas (relayshares.py): the arithmetic."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from parlor.eventstore.relayshares import share, to_hand_over, to_take


@dataclass
class Part:
    base: str
    partition: int
    held: bool = False


def lane(base: str, partitions: int, held: frozenset[int] = frozenset()) -> list[Part]:
    return [Part(base, p, p in held) for p in range(partitions)]


@pytest.mark.parametrize(
    ("parts", "replicas", "each"),
    [(4, 1, 4), (4, 2, 2), (4, 3, 2), (4, 4, 1), (4, 9, 1), (1, 3, 1), (8, 3, 3), (4, 0, 4)],
)
def test_a_share_is_the_parts_over_the_replicas_rounded_up(
    parts: int, replicas: int, each: int
) -> None:
    assert share(parts, replicas) == each


def test_a_replica_takes_free_parts_up_to_its_share_lowest_first() -> None:
    parts = lane("games", 4, held=frozenset({3}))
    free = [parts[2], parts[0], parts[1]]
    assert [p.partition for p in to_take(parts, free, 4, 2)] == [0]  # 1 held of a share of 2
    assert [p.partition for p in to_take(parts, free, 4, 1)] == [0, 1, 2]
    assert to_take(lane("games", 4, held=frozenset({0, 1})), free, 4, 2) == []


def test_each_lane_has_its_own_share() -> None:
    games, chat = lane("games", 4, held=frozenset({0, 1})), lane("chat", 4)
    taken = to_take([*games, *chat], [games[2], *chat], 4, 2)
    assert [(p.base, p.partition) for p in taken] == [("chat", 0), ("chat", 1)]


def test_a_replica_hands_over_what_it_holds_beyond_its_share_highest_first() -> None:
    parts = lane("games", 4, held=frozenset({0, 1, 2, 3}))
    assert [p.partition for p in to_hand_over(parts, 4, 2)] == [2, 3]
    assert [p.partition for p in to_hand_over(parts, 4, 3)] == [2, 3]
    assert to_hand_over(parts, 4, 1) == []
    assert to_hand_over(lane("games", 4, held=frozenset({3})), 4, 4) == []


def test_with_one_partition_nothing_is_handed_over_or_held_back() -> None:
    parts = lane("games", 1)
    assert to_take(parts, parts, 1, 5) == parts
    assert to_hand_over(lane("games", 1, held=frozenset({0})), 1, 5) == []
