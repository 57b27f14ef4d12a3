"""Verification re-decides every stored command and names the first version that differs."""

from __future__ import annotations

import dataclasses
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from parlor.gamehost.table.seating import GameFinished, OpenTable, SeatsTaken
from parlor.gamehost.verify.verify import (
    COMMAND_REFUSED,
    EVENT_DIFFERS,
    EVENTS_MISSING,
    NOT_DECIDED,
    verify_history,
)
from parlor.gametypes.seats import Seat
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.game import GAME, rules

RULES = rules()
command_of, create_of = GAME.command_of, GAME.create_of  # as parlor verify finds them


def played(seed: int, players: int = 2) -> list[object]:
    """A whole random game as the service would store it: seats, creation, moves, the end."""
    rng = random.Random(seed)
    seats = tuple(Seat(f"p{i}", f"P{i}") for i in range(players))
    events: list[object] = list(
        RULES.decide(RULES.initial_state(), OpenTable(seats, c4.CreateGame(c4.Config(players))))
    )
    state = RULES.replay(events)  # type: ignore[arg-type]
    while not RULES.is_terminal(state):
        move = rng.choice(c4.legal_moves(state.game))
        decided = RULES.decide(state, move)
        events += decided
        state = RULES.replay(events)  # type: ignore[arg-type]
    return events


def check(events: list[object]):  # type: ignore[no-untyped-def]
    return verify_history(RULES, command_of, events, stream_id="connect4x4-g", create_of=create_of)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4))
def test_every_stored_game_the_rules_made_verifies(seed: int, players: int) -> None:
    events = played(seed, players)
    verdict = check(events)
    assert verdict.ok, verdict.divergence
    assert verdict.events == len(events)
    assert verdict.commands == 1 + sum(  # the creation, then one per drop
        isinstance(e, c4.CheckerDropped | c4.BlockerDropped) for e in events
    )
    assert isinstance(events[-1], GameFinished)


def test_a_changed_winning_line_diverges_at_the_win() -> None:
    events = played(1)
    win = next(i for i, e in enumerate(events) if isinstance(e, c4.GameWon | c4.GameTied))
    if isinstance(events[win], c4.GameWon):
        events[win] = dataclasses.replace(events[win], line=())  # type: ignore[type-var]
    else:
        events[win] = c4.GameTied("SOMETHING_ELSE")
    verdict = check(events)
    assert verdict.divergence is not None
    assert verdict.divergence.version == win + 1
    assert verdict.divergence.reason == EVENT_DIFFERS


def test_a_checker_stored_in_the_wrong_row_diverges_at_that_drop() -> None:
    events = played(2)
    drop = next(i for i, e in enumerate(events) if isinstance(e, c4.CheckerDropped))
    stored = events[drop]
    assert isinstance(stored, c4.CheckerDropped)
    events[drop] = dataclasses.replace(stored, row=stored.row + 1)
    verdict = check(events)
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (drop + 1, EVENT_DIFFERS)


def test_a_move_out_of_turn_is_refused_at_its_version() -> None:
    events = played(3)
    drop = next(i for i, e in enumerate(events) if isinstance(e, c4.CheckerDropped))
    stored = events[drop]
    assert isinstance(stored, c4.CheckerDropped)
    events[drop] = dataclasses.replace(stored, seat=1 - stored.seat)
    verdict = check(events)
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (drop + 1, COMMAND_REFUSED)


def test_a_stored_end_without_its_command_is_not_decided() -> None:
    events = played(4)
    drop = next(i for i, e in enumerate(events) if isinstance(e, c4.CheckerDropped))
    events.insert(drop, c4.GameTied("ALL_CHECKERS_USED"))  # right after the creation
    verdict = check(events)
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (drop + 1, NOT_DECIDED)


def test_a_history_cut_inside_a_decision_misses_events() -> None:
    events = played(5)
    verdict = check(events[:-1])  # GameFinished lost
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (len(events), EVENTS_MISSING)


def test_creation_is_re_decided_from_its_seats_and_config() -> None:
    events = played(6)
    assert isinstance(events[0], SeatsTaken)
    events[0] = SeatsTaken((Seat("x"), Seat("y")))
    assert check(events).ok  # other seats, same rules: still what the rules decide
    events[0] = SeatsTaken((Seat("x"),))  # one seat: the rules refuse to open the table
    verdict = check(events)
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (1, COMMAND_REFUSED)


def test_without_create_of_the_creation_is_taken_as_given() -> None:
    events = played(7)
    events[0] = SeatsTaken((Seat("x"), Seat("y")))
    assert verify_history(RULES, command_of, events).ok
