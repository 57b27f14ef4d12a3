"""One test per Take Four rule (RULES.md and the rulebook in seeds/000_...)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from kits.takefour import create, events_of, lexicon, play, start, tile, tile_set

from parlor.core.errors import InvalidArgument, RuleViolation
from parlor.rules.takefour import (
    TAKE_FOUR,
    AgreeToDeal,
    CallDone,
    CallTakeFour,
    CreateGame,
    DealAgreed,
    DoneCalled,
    GameEnded,
    MoveTile,
    Phase,
    PlaceTile,
    RoundScored,
    StartRound,
    SwapJoker,
    TakeBackTile,
    TakeFourConfig,
    TakeFourState,
    TilesDealt,
    WithdrawAgreement,
)
from parlor.rules.takefour.crossword import MAX_WORD_LENGTH
from parlor.rules.takefour.rules import attach_verdicts, legal_moves
from parlor.rules.takefour.scoring import score_player
from parlor.rules.takefour.state import Placement, Player

CATS_DOGZ = tile_set("C1 A1 T1 S1 D1 O1 G1 Z1")


def place_word(
    state: TakeFourState, seat: int, word: str, x: int = 0, y: int = 0, down: bool = False
) -> TakeFourState:
    """Place ``word`` from the seat's hand (``?`` marks nothing: jokers use lower case)."""
    for i, letter in enumerate(word):
        cx, cy = (x, y + i) if down else (x + i, y)
        if letter.islower():
            state = play(state, PlaceTile(seat, tile(state, seat, "?"), cx, cy, letter.upper()))
        else:
            state = play(state, PlaceTile(seat, tile(state, seat, letter), cx, cy))
    return state


def place_hand_in_a_row(state: TakeFourState, seat: int) -> TakeFourState:
    """Honor mode does not check calls: lay every hand tile in the next free row."""
    row = max((y for _, y in state.players[seat].grid), default=-1) + 1
    for x, t in enumerate(state.players[seat].hand):
        letter = "E" if state.config.tiles.is_joker(t) else None
        state = play(state, PlaceTile(seat, t, x, row, letter))
    return state


def assert_tiles_conserved(state: TakeFourState) -> None:
    held = [t for p in state.players for t in (*p.hand, *(q.tile for q in p.grid.values()))]
    assert sorted(held + list(state.bag) + list(state.unused)) == list(
        range(state.config.tiles.size)
    )


# --- dealing -------------------------------------------------------------------------------


def test_first_deal_gives_four_tiles_to_every_player_from_the_front_of_the_bag() -> None:
    order = list(range(99, -1, -1))
    state = start(create(3), order)
    assert [p.hand for p in state.players] == [
        (96, 97, 98, 99),
        (92, 93, 94, 95),
        (88, 89, 90, 91),
    ]
    assert state.bag == tuple(order[12:])


def test_take_four_deals_four_more_to_every_player() -> None:
    state = start(create(2, tile_set("C1 A1 T1 S1 D1 O1 G1 Z1 E8")))
    state = place_word(state, 0, "CATS")
    events = events_of(state, CallTakeFour(0))
    assert isinstance(events[-1], TilesDealt)
    assert events[-1].kind == "take_four"
    state = play(state, CallTakeFour(0))
    assert [len(p.hand) for p in state.players] == [4, 8]
    assert state.bag == ()


def test_take_four_refused_while_tiles_remain_in_hand() -> None:
    state = start(create(2))
    state = play(state, PlaceTile(0, state.players[0].hand[0], 0, 0))
    with pytest.raises(RuleViolation) as refused:
        play(state, CallTakeFour(0))
    assert refused.value.rule == "HAND_NOT_EMPTY"


def test_take_four_refused_once_the_bag_is_empty() -> None:
    state = place_word(start(create(2, CATS_DOGZ)), 0, "CATS")
    with pytest.raises(RuleViolation) as refused:
        play(state, CallTakeFour(0))
    assert refused.value.rule == "BAG_EMPTY"


def test_three_player_last_deal_is_take_one_with_one_tile_unused() -> None:
    state = start(create(3))  # 100 tiles: 12 dealt, 88 left
    for _ in range(7):  # seven full deals of 12
        state = play(place_hand_in_a_row(state, 0), CallTakeFour(0))
    assert len(state.bag) == 4
    state = place_hand_in_a_row(state, 0)
    last = events_of(state, CallTakeFour(0))[-1]
    assert isinstance(last, TilesDealt)
    assert (last.kind, last.counts, len(last.unused)) == ("last", (1, 1, 1), 1)
    state = play(state, CallTakeFour(0))
    assert state.bag == ()
    assert len(state.unused) == 1
    assert [len(p.hand) for p in state.players] == [1, 33, 33]
    assert_tiles_conserved(state)


def test_eight_player_last_deal_shares_the_rest_equally() -> None:
    # 52 tiles: the first deal takes 32, the 20 left give 2 each and leave 4 unused.
    state = start(create(8, tile_set("E40 T12")))
    state = play(place_hand_in_a_row(state, 5), CallTakeFour(5))
    assert [len(p.hand) for p in state.players] == [6, 6, 6, 6, 6, 2, 6, 6]
    assert state.bag == ()
    assert len(state.unused) == 4
    assert_tiles_conserved(state)


def test_eight_player_last_deal_of_the_standard_set_deals_nothing_and_leaves_four() -> None:
    """Rules 1 (games recorded before versions): the 4 left over were still a deal of 0 each.

    Rules 2 leaves them unused at once (test_takefour_fine_points.py).
    """
    state = start(create(8, rules=1))  # 100 = 32 + 32 + 32 + 4
    for _ in range(2):
        state = play(place_hand_in_a_row(state, 0), CallTakeFour(0))
    assert len(state.bag) == 4
    state = place_hand_in_a_row(state, 0)
    last = events_of(state, CallTakeFour(0))[-1]
    assert isinstance(last, TilesDealt)
    assert (last.kind, last.counts, len(last.unused)) == ("last", (0,) * 8, 4)
    state = play(state, CallTakeFour(0))
    assert state.bag == ()
    assert len(state.unused) == 4
    assert_tiles_conserved(state)


# --- stalemate -----------------------------------------------------------------------------


def test_stalemate_deal_only_when_all_agree() -> None:
    state = start(create(3))
    first = events_of(state, AgreeToDeal(0))
    assert first == [DealAgreed(0)]
    state = play(state, AgreeToDeal(0), AgreeToDeal(1))
    assert [len(p.hand) for p in state.players] == [4, 4, 4]
    events = events_of(state, AgreeToDeal(2))
    assert isinstance(events[-1], TilesDealt)
    assert events[-1].kind == "stalemate"
    state = play(state, AgreeToDeal(2))
    assert [len(p.hand) for p in state.players] == [8, 8, 8]
    assert not any(p.agrees_to_deal for p in state.players)  # a deal clears agreements


def test_withdrawn_agreement_blocks_the_stalemate_deal() -> None:
    state = start(create(3))
    state = play(state, AgreeToDeal(0), WithdrawAgreement(0), AgreeToDeal(1), AgreeToDeal(2))
    assert [len(p.hand) for p in state.players] == [4, 4, 4]
    with pytest.raises(RuleViolation) as refused:
        play(state, AgreeToDeal(1))
    assert refused.value.rule == "ALREADY_AGREED"


def test_take_four_deal_clears_stalemate_agreements() -> None:
    state = start(create(2))
    state = play(state, AgreeToDeal(1))
    state = play(place_hand_in_a_row(state, 0), CallTakeFour(0))
    assert not state.players[1].agrees_to_deal


# --- grid ----------------------------------------------------------------------------------


def test_tiles_move_on_the_grid_and_go_back_to_the_hand() -> None:
    state = start(create(2, CATS_DOGZ))
    c = tile(state, 0, "C")
    state = play(state, PlaceTile(0, c, 0, 0), MoveTile(0, 0, 0, -3, 4))
    assert state.players[0].grid == {(-3, 4): Placement(c, "C")}
    state = play(state, TakeBackTile(0, -3, 4))
    assert state.players[0].grid == {}
    assert c in state.players[0].hand
    with pytest.raises(RuleViolation) as refused:
        play(state, TakeBackTile(0, -3, 4))
    assert refused.value.rule == "CELL_EMPTY"


def test_a_cell_holds_one_tile() -> None:
    state = start(create(2, CATS_DOGZ))
    state = play(state, PlaceTile(0, tile(state, 0, "C"), 0, 0))
    with pytest.raises(RuleViolation) as refused:
        play(state, PlaceTile(0, tile(state, 0, "A"), 0, 0))
    assert refused.value.rule == "CELL_OCCUPIED"


def test_only_tiles_in_your_hand_can_be_placed() -> None:
    state = start(create(2, CATS_DOGZ))
    with pytest.raises(RuleViolation) as refused:
        play(state, PlaceTile(0, tile(state, 1, "D"), 0, 0))
    assert refused.value.rule == "TILE_NOT_IN_HAND"


def test_coordinates_beyond_the_bound_are_invalid_arguments() -> None:
    state = start(create(2, CATS_DOGZ))
    c = tile(state, 0, "C")
    play(state, PlaceTile(0, c, -1000, 1000))
    for x, y in ((1001, 0), (0, -1001)):
        with pytest.raises(InvalidArgument) as refused:
            play(state, PlaceTile(0, c, x, y))
        assert refused.value.reason == "COORDINATE_OUT_OF_RANGE"


def test_joker_is_placed_with_a_chosen_letter() -> None:
    state = start(create(2, tile_set("C1 T1 D1 O1 G1 S1", jokers=2)), [0, 6, 1, 3, 2, 4, 5, 7])
    joker = tile(state, 0, "?")
    with pytest.raises(InvalidArgument) as refused:
        play(state, PlaceTile(0, joker, 1, 0))
    assert refused.value.reason == "JOKER_LETTER_REQUIRED"
    state = place_word(state, 0, "CaT")
    assert state.players[0].letters() == {(0, 0): "C", (1, 0): "A", (2, 0): "T"}


def test_joker_swap_returns_the_joker_to_the_hand_for_reuse() -> None:
    tiles = tile_set("C1 A1 T1 D1 O1 G1", jokers=2)  # ids: C0 A1 T2 D3 O4 G5 ?6 ?7
    state = start(create(2, tiles, deal_size=4), [0, 6, 2, 1, 3, 4, 5, 7])
    state = place_word(state, 0, "CaT")  # C, joker as A, T; the real A stays in hand
    with pytest.raises(RuleViolation) as refused:
        play(state, SwapJoker(0, tile(state, 0, "A"), 0, 0))
    assert refused.value.rule == "NOT_A_JOKER"
    state = play(state, SwapJoker(0, 1, 1, 0))
    assert state.players[0].grid[(1, 0)] == Placement(1, "A")
    assert state.players[0].hand == (6,)
    state = play(state, PlaceTile(0, 6, 3, 0, "S"))  # the joker reused: CATS
    assert state.players[0].letters() == {(0, 0): "C", (1, 0): "A", (2, 0): "T", (3, 0): "S"}


def test_joker_swap_needs_the_letter_the_joker_stands_for() -> None:
    tiles = tile_set("C1 A1 T1 D1 O1 G1", jokers=2)
    state = start(create(2, tiles, deal_size=4), [0, 6, 2, 1, 3, 4, 5, 7])
    state = place_word(state, 0, "Ca")
    with pytest.raises(RuleViolation) as refused:
        play(state, SwapJoker(0, 2, 1, 0))  # T cannot replace a joker standing for A
    assert refused.value.rule == "LETTER_MISMATCH"


# --- Done, checking and scoring ------------------------------------------------------------


def test_done_refused_while_the_bag_has_tiles() -> None:
    state = place_hand_in_a_row(start(create(2)), 0)
    with pytest.raises(RuleViolation) as refused:
        play(state, CallDone(0))
    assert refused.value.rule == "BAG_NOT_EMPTY"


@pytest.mark.parametrize("reading", [{"checking": "auto"}, {"rules": 1}])
def test_done_refused_while_tiles_remain_in_hand(reading: dict[str, object]) -> None:
    """Auto mode, and honor mode in rules 1; honor mode in rules 2 lets the call stand."""
    state = place_word(start(create(2, CATS_DOGZ, **reading)), 0, "CAT")
    with pytest.raises(RuleViolation) as refused:
        play(state, CallDone(0), words=lexicon("CAT"))
    assert refused.value.rule == "HAND_NOT_EMPTY"


def test_done_needs_verdicts_for_every_word_scoring_reads() -> None:
    state = place_word(start(create(2, CATS_DOGZ)), 0, "CATS")
    assert TAKE_FOUR.words_to_check(state, CallDone(0)) == {"CA", "AT", "TS", "CAT", "ATS", "CATS"}
    with pytest.raises(InvalidArgument) as refused:
        play(state, CallDone(0))
    assert refused.value.reason == "MISSING_VERDICTS"


def test_auto_mode_refuses_an_invalid_call() -> None:
    tiles = tile_set("C1 A1 T1 X1 D1 O1 G1 S1 E8")
    state = start(create(2, tiles, checking="auto"))
    state = place_word(state, 0, "CATX")
    state = place_word(state, 1, "DOGS")
    words = lexicon("CAT", "DOGS")
    assert TAKE_FOUR.words_to_check(state, CallTakeFour(0)) == {"CATX"}
    with pytest.raises(RuleViolation) as refused:
        play(state, CallTakeFour(0), words=words)
    assert refused.value.rule == "INVALID_CROSSWORD"
    assert "CATX" in refused.value.message
    assert "DOGS" not in refused.value.message
    state = play(state, CallTakeFour(1), words=words)  # a valid call goes through
    assert len(state.players[0].hand) == 4


def test_auto_mode_refuses_an_invalid_done() -> None:
    state = start(create(2, CATS_DOGZ, checking="auto"))
    state = place_word(state, 0, "CAST")
    with pytest.raises(RuleViolation) as refused:
        play(state, CallDone(0), words=lexicon("CATS"))
    assert refused.value.rule == "INVALID_CROSSWORD"


def test_honor_mode_does_not_check_calls() -> None:
    tiles = tile_set("C1 A1 T1 X1 D1 O1 G1 S1 E8")
    state = place_word(start(create(2, tiles)), 0, "CATX")
    state = play(state, CallTakeFour(0))
    assert len(state.players[0].hand) == 4


def test_valid_done_scores_zero_and_others_score_their_unused_values() -> None:
    state = start(create(2, CATS_DOGZ))  # seat 0: C A T S, seat 1: D O G Z
    state = place_word(place_word(state, 0, "CATS"), 1, "DOG")
    events = events_of(state, CallDone(0), words=lexicon("CATS", "DOG"))
    scored = next(e for e in events if isinstance(e, RoundScored))
    assert (scored.scores, scored.done_valid) == ((0, 10), True)  # Z (10) never placed


def test_done_records_the_words_the_dictionary_accepted_among_those_scoring_read() -> None:
    """The verdicts are the service's input: recorded, a replay can decide the scoring again."""
    state = start(create(2, CATS_DOGZ))
    state = place_word(place_word(state, 0, "CATS"), 1, "DOG")
    words = lexicon("CATS", "CAT", "AT", "DOG", "DO", "QUIZ")  # QUIZ is on no grid
    events = events_of(state, CallDone(0), words=words)
    done = events[0]
    assert done == DoneCalled(0, ("AT", "CAT", "CATS", "DO", "DOG"))
    assert isinstance(done, DoneCalled)
    assert done.accepted is not None
    checked = TAKE_FOUR.words_to_check(state, CallDone(0))
    again = CallDone(0, {word: word in done.accepted for word in checked})
    assert list(TAKE_FOUR.decide(state, again)) == events


def test_others_scored_by_the_values_of_tiles_not_in_their_valid_crossword() -> None:
    state = start(create(2, CATS_DOGZ))
    # Seat 1: DOG across, Z under G: "GZ" is not a word, so Z is removed (10).
    state = place_word(place_word(state, 0, "CATS"), 1, "DOG")
    state = play(state, PlaceTile(1, tile(state, 1, "Z"), 2, 1))
    events = events_of(state, CallDone(0), words=lexicon("CATS", "DOG"))
    scored = next(e for e in events if isinstance(e, RoundScored))
    assert scored.scores == (0, 5)  # keeping Z (10) beats keeping DOG (5): D O G are removed
    assert scored.removed[1] == ((0, 0), (1, 0), (2, 0))


def test_invalid_done_scored_at_twice_the_removed_values() -> None:
    tiles = tile_set("Z1 A1 T1 D1 O1 G1")
    state = start(create(2, tiles, deal_size=3))
    state = place_word(place_word(state, 0, "ZAT"), 1, "DOG")
    events = events_of(state, CallDone(0), words=lexicon("AT", "DOG"))
    scored = next(e for e in events if isinstance(e, RoundScored))
    # Greatest value kept: Z alone (10) beats AT (2); A and T (1 + 1) removed, doubled.
    assert scored.removed[0] == ((1, 0), (2, 0))
    assert (scored.scores, scored.done_valid) == ((4, 0), False)


def test_removal_ties_keep_most_tiles_then_remove_the_smallest_cells() -> None:
    tiles = tile_set("X1 B1 D1 O1 G1", jokers=1, values={"X": 2, "B": 2})
    state = start(create(2, tiles, deal_size=3), [0, 5, 1, 2, 3, 4])
    state = place_word(place_word(state, 0, "XaB"), 1, "DOG")
    events = events_of(state, CallDone(0), words=lexicon("XA", "AB", "DOG"))
    scored = next(e for e in events if isinstance(e, RoundScored))
    # X alone, B alone, XA and AB are all worth 2; XA and AB keep two tiles; removing
    # [(0, 0)] sorts before removing [(2, 0)], so AB is kept.
    assert scored.removed[0] == ((0, 0),)
    assert scored.scores == (4, 0)


def test_done_callers_never_placed_tiles_count_double() -> None:
    tiles = tile_set("C1 A1 T1 Z1")
    player = Player(hand=(3,), grid={(0, 0): Placement(0, "C"), (1, 0): Placement(1, "A")})
    assert score_player(player, tiles, lexicon("CA"), called_done=True).score == 20
    assert score_player(player, tiles, lexicon("CA"), called_done=False).score == 10


def test_rounds_repeat_until_the_target_and_the_lowest_total_wins() -> None:
    tiles = tile_set("C1 A1 T1 Z1 O2")
    words = lexicon("CAT", "ZOO")
    state = create(2, tiles, deal_size=3, target=20)
    for expected in ((0, 12), (0, 24)):
        state = start(state)
        state = play(place_word(state, 0, "CAT"), CallDone(0), words=words)
        assert state.totals == expected
    assert TAKE_FOUR.is_terminal(state)
    assert state.phase is Phase.OVER
    result = TAKE_FOUR.result(state)
    assert result is not None
    assert result.winners == (0,)
    assert result.totals == (0, 24)
    with pytest.raises(RuleViolation) as refused:
        start(state)
    assert refused.value.rule == "GAME_OVER"


def test_a_set_number_of_rounds_ends_the_game_and_ties_share_the_win() -> None:
    tiles = tile_set("C1 A1 T1 Z1 O2")
    state = start(create(2, tiles, deal_size=3, max_rounds=1))
    state = place_word(place_word(state, 0, "CAT"), 1, "ZOO")
    events = events_of(state, CallDone(1), words=lexicon("CAT", "ZOO"))
    assert events[-1] == GameEnded(totals=(0, 0), winners=(0, 1))


def test_grid_commands_refused_between_rounds() -> None:
    state = create(2)
    with pytest.raises(RuleViolation) as refused:
        play(state, AgreeToDeal(0))
    assert refused.value.rule == "ROUND_NOT_IN_PLAY"


# --- setup ---------------------------------------------------------------------------------


def test_game_needs_two_to_eight_players() -> None:
    for players in (1, 9):
        with pytest.raises(InvalidArgument):
            create(players)
    assert len(create(8).players) == 8


def test_round_needs_every_tile_exactly_once_in_the_bag_order() -> None:
    state = create(2)
    with pytest.raises(InvalidArgument):
        play(state, StartRound((*tuple(range(99)), 0)))


def test_standard_set_has_96_letters_and_4_jokers() -> None:
    tiles = TakeFourConfig().tiles
    faces = [tiles.face(t) for t in range(tiles.size)]
    assert len(faces) == 100
    assert faces.count("?") == 4
    assert (faces.count("E"), tiles.value(faces.index("Q")), tiles.value(faces.index("?"))) == (
        11,
        10,
        0,
    )


def test_game_is_created_once() -> None:
    state = create(2)
    with pytest.raises(RuleViolation):
        play(state, CreateGame(TakeFourConfig(), ("a", "b")))


def test_legal_moves_are_all_accepted() -> None:
    tiles = tile_set("C1 A1 T1 D1 O1 G1", jokers=2)
    state = start(create(2, tiles), [0, 6, 2, 1, 3, 4, 5, 7])
    state = place_word(state, 0, "Ca")
    moves = legal_moves(state, 0)
    kinds = {type(m).__name__ for m in moves}
    assert {"PlaceTile", "MoveTile", "TakeBackTile", "SwapJoker"} <= kinds
    for move in moves:
        assert TAKE_FOUR.decide(state, attach_verdicts(state, move, lexicon("CAT")))
    assert legal_moves(create(2), 0) == []


def test_play_is_simultaneous_with_no_turns() -> None:
    state = start(create(3))
    for seat in (2, 2, 0, 1, 2, 0):
        t = state.players[seat].hand[0]
        x = len(state.players[seat].grid)
        letter = "E" if state.config.tiles.is_joker(t) else None
        state = play(state, PlaceTile(seat, t, x, 0, letter))
    assert [len(p.grid) for p in state.players] == [2, 1, 3]


def test_done_stops_the_round_for_everyone() -> None:
    state = start(create(2, CATS_DOGZ))
    state = play(place_word(state, 0, "CATS"), CallDone(0), words=lexicon("CATS"))
    assert state.phase is Phase.BETWEEN_ROUNDS
    with pytest.raises(RuleViolation) as refused:
        play(state, PlaceTile(1, tile(state, 1, "D"), 0, 0))
    assert refused.value.rule == "ROUND_NOT_IN_PLAY"
    with pytest.raises(RuleViolation):
        play(state, CallDone(1))


# --- words longer than the dictionary's bound (issue 15, class 4) --------------------------


def long_row(length: int) -> TakeFourState:
    """Seat 0's grid is one row of ``length`` A tiles (a custom set), seat 1's a lone B."""
    state = start(create(2, tile_set(f"A{length} B1 C2"), deal_size=1))
    row = {(x, 0): Placement(x, "A") for x in range(length)}
    players = (Player(grid=row), Player(grid={(0, 0): Placement(length, "B")}))
    return replace(state, bag=(), players=players)


def test_a_row_longer_than_the_dictionary_bound_is_never_sent_and_never_a_word() -> None:
    from parlor.kit.bounds import MAX_STRING
    from parlor.lexicon.lexicon import Lexicon
    from parlor.lexicon.query import MAX_WORD_LENGTH as DICTIONARY_BOUND

    assert MAX_WORD_LENGTH == DICTIONARY_BOUND <= MAX_STRING  # what CheckWords judges
    state = long_row(MAX_WORD_LENGTH + 2)
    for command in (CallDone(0), CallTakeFour(0)):
        checked = TAKE_FOUR.words_to_check(state, command)
        assert max(map(len, checked), default=0) <= MAX_WORD_LENGTH
    assert "A" * MAX_WORD_LENGTH in TAKE_FOUR.words_to_check(state, CallDone(0))
    # The dictionary judges the batch instead of refusing it.
    batch = sorted(TAKE_FOUR.words_to_check(state, CallDone(0)))
    answers = Lexicon("t", ["aa", "a" * MAX_WORD_LENGTH]).check_many(batch)
    assert answers == [w in ("AA", "A" * MAX_WORD_LENGTH) for w in batch]

    # Even verdicts that call the whole row a word do not make it one: it is not checkable.
    everything = CallDone(0, {w: True for w in TAKE_FOUR.words_to_check(state, CallDone(0))})
    everything.verdicts["A" * (MAX_WORD_LENGTH + 2)] = True
    events = list(TAKE_FOUR.decide(state, everything))
    done, scored = events[0], events[1]
    assert isinstance(done, DoneCalled)
    assert isinstance(scored, RoundScored)
    assert done.accepted is not None
    assert "A" * (MAX_WORD_LENGTH + 2) not in done.accepted
    assert not scored.done_valid
    assert len(scored.removed[0]) == 2  # the longest word the dictionary can judge stays
    assert scored.removed[1] == ()


def test_auto_mode_names_a_too_long_run_by_a_short_prefix() -> None:
    state = long_row(MAX_WORD_LENGTH + 2)
    state = replace(state, config=replace(state.config, checking="auto"))
    with pytest.raises(RuleViolation) as refused:
        play(state, CallDone(0), words=lambda word: True)
    assert refused.value.rule == "INVALID_CROSSWORD"
    assert f"({MAX_WORD_LENGTH + 2} letters)" in refused.value.message
    assert len(refused.value.message) < 120


def test_a_row_within_the_bound_is_still_checked_whole() -> None:
    state = long_row(MAX_WORD_LENGTH)
    words = lexicon("A" * MAX_WORD_LENGTH)
    events = events_of(state, CallDone(0), words=words)
    scored = next(e for e in events if isinstance(e, RoundScored))
    assert scored.done_valid
    assert scored.removed == ((), ())


def test_standard_set_is_the_rules_mix_with_the_rules_values() -> None:
    """RULES.md, Take Four "Tiles": every letter's count and value, and the jokers'."""
    counts = "A9 B2 C2 D4 E11 F2 G3 H2 I8 J1 K1 L4 M2 N6 O8 P2 Q1 R6 S4 T6 U4 V2 W2 X1 Y2 Z1"
    worth = {
        **dict.fromkeys("AEILNORSTU", 1),
        **dict.fromkeys("DG", 2),
        **dict.fromkeys("BCMP", 3),
        **dict.fromkeys("FHVWY", 4),
        "K": 5,
        **dict.fromkeys("JX", 8),
        **dict.fromkeys("QZ", 10),
        "?": 0,
    }
    tiles = TakeFourConfig().tiles
    faces = [tiles.face(t) for t in range(tiles.size)]
    assert {f: faces.count(f) for f in set(faces)} == {
        **{item[0]: int(item[1:]) for item in counts.split()},
        "?": 4,
    }
    assert all(tiles.value(t) == worth[tiles.face(t)] for t in range(tiles.size))


def test_auto_mode_refuses_a_call_on_words_that_do_not_connect() -> None:
    """A crossword is connected: two valid words apart are not one."""
    tiles = tile_set("C1 A1 T1 O1 D1 G1 S1 E9")
    state = start(create(2, tiles, checking="auto"))  # seat 0: C A T O
    state = place_word(state, 0, "AT")
    state = play(state, PlaceTile(0, tile(state, 0, "C"), 5, 5))
    state = play(state, PlaceTile(0, tile(state, 0, "O"), 5, 6))
    words = lexicon("AT", "CO")
    with pytest.raises(RuleViolation) as refused:
        play(state, CallTakeFour(0), words=words)
    assert refused.value.rule == "INVALID_CROSSWORD"
    assert "connected" in refused.value.message
    state = play(state, MoveTile(0, 5, 5, 0, -1), MoveTile(0, 5, 6, 1, -1))  # CO over AT
    with pytest.raises(RuleViolation):  # now CA and OT run down: not words
        play(state, CallTakeFour(0), words=words)
    state = play(state, TakeBackTile(0, 0, -1), TakeBackTile(0, 1, -1))
    state = play(state, PlaceTile(0, tile(state, 0, "C"), 0, -1))  # C over A: CA down
    state = play(state, PlaceTile(0, tile(state, 0, "O"), 2, 0))  # ATO across
    with pytest.raises(RuleViolation):
        play(state, CallTakeFour(0), words=lexicon("AT", "CA"))  # ATO is not a word
    assert play(state, CallTakeFour(0), words=lexicon("ATO", "CA")).players[0].hand


def test_words_across_and_down_share_a_tile_and_removal_drops_only_what_it_must() -> None:
    """CAT across and COT down share C; with COT not a word, the removal rule keeps CAT
    and the most of the down word it can (C is kept, O and T go)."""
    tiles = tile_set("C1 A1 T2 O1 Z6")
    state = start(create(2, tiles, deal_size=5))  # seat 0: C A T T O
    state = place_word(state, 0, "CAT")
    state = play(state, PlaceTile(0, tile(state, 0, "O"), 0, 1))
    state = play(state, PlaceTile(0, tile(state, 0, "T"), 0, 2))
    assert TAKE_FOUR.words_to_check(state, CallDone(0)) >= {"CAT", "COT"}
    events = events_of(state, CallDone(0), words=lexicon("CAT"))
    scored = next(e for e in events if isinstance(e, RoundScored))
    assert scored.removed[0] == ((0, 1), (0, 2))
    assert scored.scores[0] == 2 * (1 + 1)
    events = events_of(state, CallDone(0), words=lexicon("CAT", "COT"))
    scored = next(e for e in events if isinstance(e, RoundScored))
    assert (scored.scores[0], scored.done_valid) == (0, True)


def test_a_total_equal_to_the_target_ends_the_game() -> None:
    """RULES.md: rounds repeat until a player's total *reaches* the target."""
    tiles = tile_set("C1 A1 T1 Z1 O2")
    state = start(create(2, tiles, deal_size=3, target=12))
    state = play(place_word(state, 0, "CAT"), CallDone(0), words=lexicon("CAT", "ZOO"))
    assert state.totals == (0, 12)  # Z O O never placed: 10 + 1 + 1
    assert state.phase is Phase.OVER
    assert state.winners == (0,)
    state = start(create(2, tiles, deal_size=3, target=13))
    state = play(place_word(state, 0, "CAT"), CallDone(0), words=lexicon("CAT", "ZOO"))
    assert state.phase is Phase.BETWEEN_ROUNDS


def test_a_single_letter_is_never_checked_and_a_lone_tile_is_a_crossword() -> None:
    """Words are 2+ letters (RULES.md, "Words": as in Upwords); a lone tile has no run."""
    state = start(create(2, CATS_DOGZ, checking="auto"))
    state = play(state, PlaceTile(0, tile(state, 0, "C"), 0, 0))
    state = play(state, PlaceTile(1, tile(state, 1, "Z"), 4, 4))
    assert TAKE_FOUR.words_to_check(state, CallDone(0)) == frozenset()
    state = place_word(state, 0, "AT", x=1)  # CAT: now the runs and their pieces
    checked = TAKE_FOUR.words_to_check(state, CallDone(0))
    assert checked == {"CA", "AT", "CAT"}
    assert all(len(word) >= 2 for word in checked)


def test_at_done_every_other_grid_is_checked_in_auto_mode_too() -> None:
    """Auto mode checks the caller when the call is made; scoring still removes tiles from
    every other grid that is not a valid crossword (not doubled)."""
    state = start(create(2, CATS_DOGZ, checking="auto"))
    state = place_word(place_word(state, 0, "CATS"), 1, "DOGZ")
    events = events_of(state, CallDone(0), words=lexicon("CATS", "DOG"))
    scored = next(e for e in events if isinstance(e, RoundScored))
    # Seat 1 keeps Z alone (10, more than DOG's 5): D, O and G are removed.
    assert scored.removed == ((), ((0, 0), (1, 0), (2, 0)))
    assert (scored.scores, scored.done_valid) == ((0, 5), True)
