"""What scoring is told when an Upwords game ends: ranks from the engine's winners and scores."""

from __future__ import annotations

from parlor.rules import upwords as uw
from parlor.services.upwords.game import standings


def ended(scores: tuple[int, ...], winners: tuple[int, ...], reason: str) -> uw.UpwordsState:
    return uw.UpwordsState(
        phase=uw.Phase.ENDED,
        seats=tuple(f"p{i}" for i in range(len(scores))),
        scores=scores,
        winners=winners,
        end_reason=reason,
    )


def test_winners_rank_first_and_the_rest_by_final_score() -> None:
    reason, ranks = standings(ended((30, 55, 40, 55), (1, 3), "OUT_OF_TILES"))
    assert reason == "OUT_OF_TILES"
    assert [(s.rank, s.score) for s in ranks] == [(4, 30), (1, 55), (3, 40), (1, 55)]


def test_a_resigner_with_the_top_score_still_ranks_behind_the_winner() -> None:
    _, ranks = standings(ended((90, 20), (1,), "RESIGNED"))
    assert [s.rank for s in ranks] == [2, 1]


def test_equal_final_scores_share_the_win() -> None:
    _, ranks = standings(ended((35, 35), (0, 1), "ALL_PASSED"))
    assert [s.rank for s in ranks] == [1, 1]
