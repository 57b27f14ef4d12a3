"""``parlor verify`` for Take Four: stored games re-decided from commands rebuilt from events.

The service's own decisions (each round's shuffle, the dictionary's verdicts at Done) are
recorded in the events; the rebuilt commands carry them, so a game the rules made verifies
whole, and a falsified deal, score or verdict list is named at its version.
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kits.takefour import choose, crc_word, lenient_word, lexicon, tile_set

from parlor.core.decider import replay
from parlor.gamehost.table.seating import GameFinished, OpenTable, SeatsTaken
from parlor.gamehost.verify.verify import (
    COMMAND_REFUSED,
    EVENT_DIFFERS,
    NOT_DECIDED,
    verify_history,
)
from parlor.gametypes.seats import Seat
from parlor.rules import takefour as tf
from parlor.rules.takefour.rules import attach_verdicts
from parlor.services.takefour.game import GAME, Codec, Event, rules
from parlor.takefour.v1 import takefour_pb2 as pb

RULES = rules()
command_of, create_of = GAME.command_of, GAME.create_of  # as parlor verify finds them
SMALL = tile_set("A6 E6 T6 S6 R6 N6 C2 O4", jokers=2)


def played(
    seed: int, players: int = 2, checking: str = "honor", limit: int = 1_500, rules: int = 2
) -> list[Event]:
    """A random game as the service stores it: seats, creation, rounds, the end.

    Auto mode can stall with the bag empty (no crossword to call Done on, see the rules'
    README): such a game stops after ``limit`` commands, a game in progress.
    """
    rng = random.Random(seed)
    is_word = crc_word if checking == "honor" else lenient_word  # auto needs valid grids
    seats = tuple(Seat(f"p{i}", f"P{i}") for i in range(players))
    config = tf.TakeFourConfig(tiles=SMALL, checking=checking, target=100, rules=rules)  # type: ignore[arg-type]
    opened = OpenTable(seats, tf.CreateGame(config, tuple(s.player_id for s in seats)))
    events: list[Event] = list(RULES.decide(RULES.initial_state(), opened))
    state = RULES.replay(events)
    for _ in range(limit):
        if RULES.is_terminal(state):
            return events
        command = choose(state.game, rng, is_word)
        if command is None:
            break  # stalled (auto mode): nothing more anyone may do
        decided = RULES.decide(state, command)
        events += decided
        state = replay(RULES, decided, state)
    assert checking == "auto", "an honor game always ends"
    return events


def check(events: list[Event]):  # type: ignore[no-untyped-def]
    return verify_history(RULES, command_of, events, stream_id="takefour-g", create_of=create_of)


def first(events: list[Event], kind: type) -> int:
    return next(i for i, e in enumerate(events) if isinstance(e, kind))


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4), st.sampled_from(["honor", "auto"]))
def test_every_stored_game_the_rules_made_verifies(seed: int, players: int, checking: str) -> None:
    events = played(seed, players, checking)
    verdict = check(events)
    assert verdict.ok, verdict.divergence
    assert verdict.events == len(events)
    assert isinstance(events[0], SeatsTaken)
    assert any(isinstance(e, tf.RoundStarted) for e in events)
    if checking == "honor":
        assert isinstance(events[-1], GameFinished)
        assert any(isinstance(e, tf.DoneCalled) and e.accepted for e in events)


def test_an_auto_mode_game_with_calls_and_a_done_verifies() -> None:
    """Auto mode: the Take Four call's verdicts are all "accepted", the Done's as recorded."""
    tiles = tile_set("C1 A1 T1 S1 D1 O1 G1 E1 H1 I1 X1 Y1")
    seats = (Seat("ada", "Ada"), Seat("bob", "Bob"))
    config = tf.TakeFourConfig(tiles=tiles, checking="auto", max_rounds=1)
    words = lexicon("CATS", "CH", "AI", "HI", "DOGE", "OY")  # a test lexicon
    events: list[Event] = []
    state = RULES.initial_state()

    def run(command: tf.TakeFourCommand | OpenTable[tf.CreateGame]) -> None:
        nonlocal state
        if isinstance(command, tf.CallTakeFour | tf.CallDone):
            command = attach_verdicts(state.game, command, words)
        decided = RULES.decide(state, command)
        events.extend(decided)
        state = replay(RULES, decided, state)

    def place(seat: int, face: str, x: int, y: int) -> None:
        game = state.game
        tile = next(t for t in game.players[seat].hand if tiles.face(t) == face)
        run(tf.PlaceTile(seat, tile, x, y))

    run(OpenTable(seats, tf.CreateGame(config, ("ada", "bob"))))
    run(tf.StartRound(tuple(range(tiles.size))))  # ada: C A T S, bob: D O G E
    for seat, word in ((0, "CATS"), (1, "DOGE")):
        for x, letter in enumerate(word):
            place(seat, letter, x, 0)
    run(tf.CallTakeFour(0))  # checked: CATS; the last deal: H I to ada, X Y to bob
    place(0, "H", 0, 1)  # CH and AI down, HI across
    place(0, "I", 1, 1)
    place(1, "Y", 1, 1)  # OY down
    place(1, "X", 9, 9)  # apart: X is removed
    run(tf.CallDone(0))
    assert RULES.is_terminal(state)
    done = next(e for e in events if isinstance(e, tf.DoneCalled))
    assert done.accepted == ("AI", "CATS", "CH", "DOGE", "HI", "OY")
    verdict = check(events)
    assert verdict.ok, verdict.divergence
    assert verdict.commands == 1 + 1 + 8 + 1 + 4 + 1


def test_a_falsified_deal_diverges_at_the_deal() -> None:
    events = played(3)
    at = first(events, tf.TilesDealt)
    dealt = events[at]
    assert isinstance(dealt, tf.TilesDealt)
    hands = (dealt.hands[1], dealt.hands[0], *dealt.hands[2:])  # two seats' tiles swapped
    events[at] = dataclasses.replace(dealt, hands=hands)
    verdict = check(events)
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (at + 1, EVENT_DIFFERS)


def test_a_falsified_score_diverges_at_the_scoring() -> None:
    events = played(4)
    at = first(events, tf.RoundScored)
    scored = events[at]
    assert isinstance(scored, tf.RoundScored)
    events[at] = dataclasses.replace(scored, scores=(scored.scores[0] + 1, *scored.scores[1:]))
    verdict = check(events)
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (at + 1, EVENT_DIFFERS)


def test_a_verdict_list_naming_a_word_scoring_never_read_diverges_at_the_done() -> None:
    events = played(5)
    at = first(events, tf.DoneCalled)
    done = events[at]
    assert isinstance(done, tf.DoneCalled)
    assert done.accepted is not None
    events[at] = dataclasses.replace(done, accepted=tuple(sorted((*done.accepted, "ZZZZZZ"))))
    verdict = check(events)
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (at + 1, EVENT_DIFFERS)


@pytest.mark.parametrize("seed", [6, 7])
def test_a_word_refused_instead_of_accepted_changes_the_scoring(seed: int) -> None:
    """Dropping an accepted word that a kept crossword used rescores that grid."""
    events = played(seed)
    at = first(events, tf.DoneCalled)
    done, scored = events[at], events[at + 1]
    assert isinstance(done, tf.DoneCalled)
    assert done.accepted is not None
    assert isinstance(scored, tf.RoundScored)
    state = RULES.replay(events[:at])
    kept_words = {
        word
        for seat, player in enumerate(state.game.players)
        for word in _kept_words(player, scored.removed[seat])
    }
    assert kept_words, "these seeds keep a word of two letters or more"
    dropped = sorted(kept_words)[0]
    falsified = tuple(w for w in done.accepted if w != dropped)
    events[at] = dataclasses.replace(done, accepted=falsified)
    verdict = check(events)
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (at + 2, EVENT_DIFFERS)


def _kept_words(player: object, removed: tuple[tuple[int, int], ...]) -> list[str]:
    from parlor.rules.takefour.crossword import run_words

    grid = player.grid  # type: ignore[attr-defined]
    kept = {cell: p.letter for cell, p in grid.items() if cell not in removed}
    return run_words(kept)


def test_a_done_stored_without_its_verdicts_is_not_decided() -> None:
    events = played(8)
    at = first(events, tf.DoneCalled)
    events[at] = tf.DoneCalled(events[at].seat, None)  # type: ignore[union-attr]
    verdict = check(events)
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (at + 1, NOT_DECIDED)


def test_a_placement_of_a_tile_never_dealt_is_refused() -> None:
    events = played(9)
    at = first(events, tf.TilePlaced)
    placed = events[at]
    assert isinstance(placed, tf.TilePlaced)
    state = RULES.replay(events[:at])
    hand = state.game.players[placed.seat].hand
    other = next(t for t in range(SMALL.size) if t not in hand and not SMALL.is_joker(t))
    events[at] = dataclasses.replace(placed, tile=other, letter=SMALL.face(other))
    verdict = check(events)
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (at + 1, COMMAND_REFUSED)


def scripted(config: tf.TakeFourConfig, players: int, script: list[str]) -> list[Event]:
    """A game as the service stores it, from a script: ``lay<seat>`` lays the seat's hand in a
    row (honor mode checks nothing), ``takefour<seat>``, ``done<seat>`` (verdicts: crc_word).
    """
    seats = tuple(Seat(f"p{i}", f"P{i}") for i in range(players))
    opened = OpenTable(seats, tf.CreateGame(config, tuple(s.player_id for s in seats)))
    events: list[Event] = list(RULES.decide(RULES.initial_state(), opened))
    state = RULES.replay(events)

    def run(command: tf.TakeFourCommand) -> None:
        nonlocal state, events
        decided = RULES.decide(state, attach_verdicts(state.game, command, crc_word))
        events += decided
        state = replay(RULES, decided, state)

    run(tf.StartRound(tuple(random.Random(players).sample(range(100), 100))))
    for step in script:
        seat = int(step[-1])
        if step.startswith("lay"):
            game = state.game
            row = max((y for _, y in game.players[seat].grid), default=-1) + 1
            for x, t in enumerate(game.players[seat].hand):
                run(tf.PlaceTile(seat, t, x, row, "E" if game.config.tiles.is_joker(t) else None))
        else:
            run(tf.CallTakeFour(seat) if step.startswith("takefour") else tf.CallDone(seat))
    return events


SIX_PLAYERS_TO_THE_LAST_FOUR = ["lay0", "takefour0"] * 3 + ["lay0"]


def test_a_game_stored_before_rules_versions_verifies_by_the_old_reading() -> None:
    """Rules 1: 6 players, 100 tiles; 4 left were still dealt, 0 each, before Done."""
    old = tf.TakeFourConfig(rules=1)
    events = scripted(old, 6, [*SIX_PLAYERS_TO_THE_LAST_FOUR, "takefour0", "done0"])
    zero = [e for e in events if isinstance(e, tf.TilesDealt) and not any(e.counts)]
    assert len(zero) == 1
    assert len(zero[0].unused) == 4
    assert isinstance(events[-1], tf.RoundScored)
    # Stored as then: the config has no rules version; it reads back as 1 and verifies.
    codec = Codec()
    stored = []
    for event in events:
        event_type, data = codec.encode(event)
        if isinstance(event, tf.GameCreated):
            message = pb.GameCreated.FromString(data)
            message.config.ClearField("rules_version")
            data = message.SerializeToString()
        stored.append(codec.decode(event_type, data))
    assert stored == events
    verdict = check(stored)
    assert verdict.ok, verdict.divergence
    assert verdict.events == len(events)
    # Read by rules 2, the same commands decide otherwise: the version is what keeps it.
    created = stored[1]
    assert isinstance(created, tf.GameCreated)
    stored[1] = dataclasses.replace(created, config=dataclasses.replace(old, rules=2))
    assert check(stored).divergence is not None


def test_a_rules_2_game_with_no_deal_of_0_and_an_honor_done_in_hand_verifies() -> None:
    events = scripted(tf.TakeFourConfig(), 6, [*SIX_PLAYERS_TO_THE_LAST_FOUR, "done1"])
    deals = [e for e in events if isinstance(e, tf.TilesDealt)]
    assert all(any(d.counts) for d in deals)
    assert (len(deals[-1].unused), deals[-1].bag_left) == (4, 0)
    done = next(e for e in events if isinstance(e, tf.DoneCalled))
    assert (done.seat, done.in_hand) == (1, 16)  # seat 1 never placed a tile
    scored = next(e for e in events if isinstance(e, tf.RoundScored))
    assert not scored.done_valid
    verdict = check(events)
    assert verdict.ok, verdict.divergence
    assert verdict.events == len(events)


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 8), st.sampled_from(["honor", "auto"]))
def test_every_stored_rules_1_game_the_rules_made_verifies(
    seed: int, players: int, checking: str
) -> None:
    events = played(seed, players, checking, rules=1)
    created = events[1]
    assert isinstance(created, tf.GameCreated)
    assert created.config.rules == 1
    verdict = check(events)
    assert verdict.ok, verdict.divergence
    assert verdict.events == len(events)
