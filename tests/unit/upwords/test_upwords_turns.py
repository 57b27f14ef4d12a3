"""Turns: refill, pass, exchange, the end of the game, word checking and challenges."""

from __future__ import annotations

import pytest
from upwords_testkit import approved, board, play, run, state

from parlor.core.errors import InvalidArgument, PermissionDenied, RuleViolation
from parlor.rules import upwords as uw
from parlor.rules.upwords import (
    UPWORDS,
    AcceptPlay,
    Challenge,
    ChallengeFailed,
    Exchange,
    GameEnded,
    Pass,
    PlayAccepted,
    PlayWithdrawn,
    Resign,
    TileExchanged,
    UpwordsConfig,
    WordChecking,
    WordPlayed,
    exchange_positions,
)
from parlor.rules.upwords.standings import standings
from parlor.rules.upwords.state import Phase

CHALLENGE = UpwordsConfig(word_checking=WordChecking.CHALLENGE)
OLD_RULES = UpwordsConfig(rules=1)


def test_refill_to_seven_after_a_play() -> None:
    s = state(racks=("CATXYZE", "ABCDEFG"), bag="PQRS")
    s, _ = run(s, approved(s, 0, "5E CAT"))
    assert sorted(s.racks[0]) == sorted("XYZEPQR")
    assert s.bag == ("S",)
    assert s.scores == (6, 0)
    assert s.to_move == 1


def test_refill_takes_what_the_bag_has() -> None:
    s = state(racks=("CATXYZE", "ABCDEFG"), bag="P")
    s, _ = run(s, approved(s, 0, "5E CAT"))
    assert len(s.racks[0]) == 5
    assert s.bag == ()


def test_auto_mode_refuses_invalid_words_naming_them() -> None:
    s = state(racks=("CTAXYZE", "ABCDEFG"))
    with pytest.raises(RuleViolation) as caught:
        UPWORDS.decide(s, play(0, "5E CTA", {"cta": False}))
    assert caught.value.rule == "INVALID_WORDS"
    assert caught.value.metadata["words"] == "cta"


def test_auto_mode_needs_a_verdict_for_every_word() -> None:
    s = state(racks=("CATXYZE", "ABCDEFG"))
    with pytest.raises(InvalidArgument):
        UPWORDS.decide(s, play(0, "5E CAT", {}))


def test_pass_gives_the_turn_to_the_left() -> None:
    s = state(board("5E CAT"), racks=("A", "B", "C"))
    s, _ = run(s, Pass(0))
    assert (s.to_move, s.passes) == (1, 1)


def test_a_full_round_of_passes_ends_the_game() -> None:
    s = state(board("5E CAT"), racks=("AB", "C", "DEF"), scores=(20, 30, 12))
    s, events = run(s, Pass(0), Pass(1))
    assert s.phase is Phase.PLAYING
    s, events = run(s, Pass(2))
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert ended.reason == "ALL_PASSED"
    assert s.phase is Phase.ENDED


def test_end_of_game_penalties_five_per_tile_left() -> None:
    s = state(board("5E CAT"), racks=("AB", "C", "DEF"), scores=(20, 30, 12))
    s, events = run(s, Pass(0), Pass(1), Pass(2))
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert ended.penalties == (10, 5, 15)
    assert s.scores == (10, 25, -3)
    assert ended.winners == (1,)
    assert UPWORDS.result(s) is not None


def test_equal_scores_share_the_win() -> None:
    s = state(board("5E CAT"), racks=("AB", "CD"), scores=(20, 20))
    s, _ = run(s, Pass(0), Pass(1))
    assert s.winners == (0, 1)


def test_an_exchange_is_not_a_pass() -> None:
    s = state(board("5E CAT"), racks=("AB", "CD"), bag="XYZ")
    s, _ = run(s, Pass(0), Exchange(1, "C", 0), Pass(0))
    assert s.phase is Phase.PLAYING
    assert s.passes == 1


def test_exchange_swaps_one_tile_and_loses_the_turn() -> None:
    s = state(board("5E CAT"), racks=("ABCDEFG", "HIJKLMN"), bag="XYZ")
    assert exchange_positions(s) == 3
    s, events = run(s, Exchange(0, "C", 1))
    assert events == [TileExchanged(0, "C", "X", 1)]
    assert sorted(s.racks[0]) == sorted("ABDEFGX")
    assert s.bag == ("Y", "C", "Z")
    assert s.to_move == 1
    assert s.scores == (0, 0)


def test_exchange_refused_when_the_bag_is_empty() -> None:
    s = state(board("5E CAT"), racks=("ABCDEFG", "HIJKLMN"), bag="")
    with pytest.raises(RuleViolation) as caught:
        UPWORDS.decide(s, Exchange(0, "C", 0))
    assert caught.value.rule == "EXCHANGE_BAG_EMPTY"


def test_exchange_of_a_tile_not_on_the_rack_refused() -> None:
    s = state(board("5E CAT"), racks=("ABCDEFG", "HIJKLMN"), bag="XYZ")
    with pytest.raises(RuleViolation) as caught:
        UPWORDS.decide(s, Exchange(0, "Z", 0))
    assert caught.value.rule == "TILES_NOT_ON_RACK"


def test_the_game_ends_when_a_player_is_out_and_the_bag_is_empty() -> None:
    s = state(board("5E CAT"), racks=("O", "HIJ"), bag="", scores=(10, 10))
    s, events = run(s, approved(s, 0, "5E (C)O(T)"))
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert ended.reason == "OUT_OF_TILES"
    assert ended.penalties == (0, 15)
    assert s.scores == (10 + 4, 10 - 15)


def test_challenge_of_an_invalid_word_takes_the_play_back() -> None:
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"), bag="PQR", config=CHALLENGE)
    before = s
    s, events = run(s, play(0, "5E (C)O(T)"))
    assert isinstance(events[-1], WordPlayed)
    assert s.board.top(4, 5) == "O"
    assert s.pending is not None
    assert s.pending.words == ("cot",)
    s, events = run(s, Challenge(1, {"cot": False}))
    assert isinstance(events[-1], PlayWithdrawn)
    assert events[-1].invalid_words == ("cot",)
    assert s.board == before.board
    assert sorted(s.racks[0]) == sorted(before.racks[0])
    assert s.scores == before.scores
    assert s.bag == before.bag
    assert s.to_move == 0
    assert s.retry


def test_after_a_withdrawn_play_the_player_plays_again_or_passes() -> None:
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"), bag="PQR", config=CHALLENGE)
    s, _ = run(s, play(0, "5E (C)O(T)"), Challenge(1, {"cot": False}))
    with pytest.raises(RuleViolation) as caught:
        UPWORDS.decide(s, Exchange(0, "X", 0))
    assert caught.value.rule == "EXCHANGE_AFTER_WITHDRAWN"
    s, _ = run(s, Pass(0))
    assert s.to_move == 1


def test_a_failed_challenge_costs_nothing() -> None:
    s = state(
        board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"), bag="PQR", config=CHALLENGE, scores=(5, 7)
    )
    s, _ = run(s, play(0, "5E (C)O(T)"))
    s, events = run(s, Challenge(1, {"cot": True}))
    assert isinstance(events[0], ChallengeFailed)
    assert isinstance(events[1], PlayAccepted)
    assert s.scores == (5 + 4, 7)
    assert s.to_move == 1
    assert s.pending is None
    assert len(s.racks[0]) == 7


def test_a_play_may_not_be_challenged_by_its_player() -> None:
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"), config=CHALLENGE)
    s, _ = run(s, play(0, "5E (C)O(T)"))
    with pytest.raises(PermissionDenied):
        UPWORDS.decide(s, Challenge(0, {"cot": False}))


def test_the_challenge_window_closes_at_the_next_play() -> None:
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"), bag="PQRSTUV", config=CHALLENGE)
    s, _ = run(s, play(0, "5E (C)O(T)"))
    s, events = run(s, play(1, "6E A"))
    assert events[0] == PlayAccepted(0)
    assert len(s.racks[0]) == 7
    assert s.pending is not None
    assert s.pending.seat == 1


def test_challenge_mode_accepts_plays_unchecked() -> None:
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"), config=CHALLENGE)
    s, events = run(s, play(0, "5E (C)X(T)"))
    assert isinstance(events[-1], WordPlayed)


def test_the_last_play_ends_the_game_only_once_accepted() -> None:
    s = state(board("5E CAT"), racks=("O", "HIJ"), bag="", config=CHALLENGE)
    s, _ = run(s, play(0, "5E (C)O(T)"))
    assert s.phase is Phase.PLAYING
    with pytest.raises(RuleViolation):
        UPWORDS.decide(s, Pass(1))
    s, events = run(s, AcceptPlay(1))
    assert isinstance(events[-1], GameEnded)
    assert s.phase is Phase.ENDED


def test_resigning_ends_the_game_and_the_resigner_cannot_win() -> None:
    s = state(board("5E CAT"), racks=("O", "HIJ"), scores=(50, 3))
    s, events = run(s, Resign(0))
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert (ended.reason, ended.winners) == ("RESIGNED", (1,))


def test_pass_out_of_turn_refused() -> None:
    s = state(board("5E CAT"), racks=("A", "B"))
    with pytest.raises(PermissionDenied):
        UPWORDS.decide(s, Pass(1))


def test_no_moves_after_the_game_ended() -> None:
    s = state(board("5E CAT"), racks=("A", "B"))
    s, _ = run(s, Pass(0), Pass(1))
    with pytest.raises(RuleViolation) as caught:
        UPWORDS.decide(s, Pass(0))
    assert caught.value.rule == "GAME_NOT_IN_PROGRESS"


def test_a_challenge_needs_a_verdict_for_every_word() -> None:
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"), config=CHALLENGE)
    s, _ = run(s, play(0, "5E (C)O(T)"))
    with pytest.raises(InvalidArgument):
        UPWORDS.decide(s, Challenge(1, {}))


def test_a_resignation_leaves_three_or_four_players_playing() -> None:
    """Rules 2 (docs/rules/upwords.md, "Other turns"): the seat drops out, its turns are
    skipped and its commands refused; the last seat left wins (RESIGNED)."""
    s = state(board("5E CAT"), racks=("O", "HIJ", "KLM"), scores=(50, 3, 9))
    s, events = run(s, Resign(0))  # on its own turn: play goes on to seat 1
    assert [type(e).__name__ for e in events] == ["PlayerResigned"]
    assert (s.phase, s.to_move, s.active) == (Phase.PLAYING, 1, 2)
    with pytest.raises(RuleViolation) as refused:
        UPWORDS.decide(s, Pass(0))
    assert refused.value.rule == "SEAT_RESIGNED"
    s, _ = run(s, Pass(1))
    assert s.to_move == 2
    s, _ = run(s, Exchange(2, "K", 0))
    assert s.to_move == 1  # seat 0 is skipped
    s, events = run(s, Resign(2))  # out of turn: one seat is left
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert (ended.reason, ended.winners) == ("RESIGNED", (1,))  # 50 points do not win


def test_the_others_passing_round_after_a_resignation_ends_the_game() -> None:
    s = state(board("5E CAT"), racks=("O", "HIJ", "KLM"), scores=(1, 3, 9), to_move=1)
    s, _ = run(s, Pass(1))
    s, events = run(s, Resign(0))
    assert [type(e).__name__ for e in events] == ["PlayerResigned"]
    s, events = run(s, Pass(2))  # both still playing have passed since the last play
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert (ended.reason, ended.winners) == ("ALL_PASSED", (2,))


def test_rules_1_games_replay_a_resignation_as_the_end_for_everyone() -> None:
    s = state(board("5E CAT"), racks=("O", "HIJ", "KLM"), scores=(50, 3, 9), config=OLD_RULES)
    s, events = run(s, Resign(0))
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert (ended.reason, ended.winners) == ("RESIGNED", (2,))
    assert s.phase is Phase.ENDED


def test_new_games_record_the_current_rules_version() -> None:
    assert uw.RULES_VERSION == 3
    assert UpwordsConfig().rules == uw.RULES_VERSION
    assert uw.rules_for_new_game(0) == uw.rules_for_new_game(3) == 3
    for older in (1, 2):
        with pytest.raises(InvalidArgument) as refused:
            uw.rules_for_new_game(older)
    assert refused.value.reason == "UNSUPPORTED_RULES_VERSION"


def test_a_seat_that_resigned_ranks_behind_every_seat_that_played_on() -> None:
    """Its score stands, but it left: it comes after those still playing at the end."""
    s = state(board("5E CAT"), racks=("O", "HIJ", "KLM"), scores=(50, 3, 9))
    s, _ = run(s, Resign(0), Pass(1), Pass(2))
    assert (s.phase, s.end_reason, s.winners) == (Phase.ENDED, "ALL_PASSED", (2,))
    assert s.scores == (45, -12, -6)  # 5 points lost per tile left, the resigner's too
    reason, ranked = standings(s)
    assert reason == "ALL_PASSED"
    assert [r.rank for r in ranked] == [3, 2, 1]  # 45 points, but it left


def test_a_play_withdrawn_after_its_player_resigned_leaves_the_turn_where_it_was() -> None:
    """Rules 2: the seat whose play is taken back has resigned since it played, so it cannot
    play again; the turn stays with the seat it had passed to (the game waited on the
    resigned seat for ever: every command refused, its clock's timeout too)."""
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG", "HIJKLMN"), bag="PQR", config=CHALLENGE)
    s, _ = run(s, play(0, "5E (C)O(T)"), Resign(0))
    assert s.to_move == 1
    s, events = run(s, Challenge(2, {"cot": False}))
    assert isinstance(events[-1], PlayWithdrawn)
    assert (s.phase, s.to_move, s.retry) == (Phase.PLAYING, 1, False)
    s, _ = run(s, Pass(1))
    assert s.to_move == 2  # the resigned seat stays skipped
    s, events = run(s, Pass(2))
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert ended.reason == "ALL_PASSED"


def test_a_play_withdrawn_after_its_player_resigned_can_end_a_round_of_passes() -> None:
    """The passes before the withdrawn play count again: with the player gone, the seats
    still playing have all passed since the last play that stands."""
    s = state(
        board("5E CAT"),
        racks=("OXXXXXX", "ABCDEFG", "HIJKLMN"),
        bag="PQR",
        config=CHALLENGE,
        to_move=1,
    )
    s, _ = run(s, Pass(1), Pass(2), play(0, "5E (C)O(T)"), Resign(0))
    s, events = run(s, Challenge(2, {"cot": False}))
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert (ended.reason, ended.winners) == ("ALL_PASSED", (1, 2))  # 7 tiles each
