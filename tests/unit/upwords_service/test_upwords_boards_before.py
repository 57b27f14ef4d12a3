"""A reply's notation needs the board before each event; worked out backwards, it is the fold's."""

from __future__ import annotations

import pytest
from test_upwords_verify import RULES, played

from parlor.rules import upwords as uw
from parlor.rules.upwords.record import boards_before


@pytest.mark.parametrize(
    ("seed", "mode"), [(1, uw.WordChecking.AUTO), (4, uw.WordChecking.CHALLENGE)]
)
def test_boards_worked_back_from_any_version_are_the_folded_ones(
    seed: int, mode: uw.WordChecking
) -> None:
    events = played(seed, 2, mode)
    table = RULES.initial_state()
    folded: list[uw.Board] = []  # the board before each event, folding forwards
    after: list[uw.Board] = []
    for event in events:
        folded.append(table.game.board if table.game is not None else uw.Board())
        table = RULES.evolve(table, event)
        after.append(table.game.board)
    withdrawn = [i for i, e in enumerate(events) if isinstance(e, uw.PlayWithdrawn)]
    if mode is uw.WordChecking.CHALLENGE:
        assert withdrawn, "the game must take a play back for this test to mean something"
    # every window of a few events ending anywhere, as replies are
    for last in range(2, len(events)):
        for size in (1, 2, 3, 5):
            first = max(2, last - size + 1)
            window = events[first : last + 1]
            assert boards_before(window, after[last]) == folded[first : last + 1], (first, last)
