"""The challenge decider: pure rules, every state change an event, refusals with reasons."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from parlor.core.errors import FailedPrecondition, InvalidArgument, PermissionDenied
from parlor.services.matchmaking.challenge import (
    CHALLENGES,
    FIRST,
    FIXED,
    RANDOM,
    SECOND,
    Accept,
    Cancel,
    Challenge,
    ChallengeAccepted,
    ChallengeCancelled,
    ChallengeCommand,
    ChallengeDeclined,
    ChallengeExpired,
    ChallengeIssued,
    Decline,
    Expire,
    GameMatched,
    Issue,
    Lapse,
    RematchLapsed,
)


def issued(
    invitees: tuple[str, ...] = ("bob",),
    open_seats: int = 0,
    bots: tuple[str, ...] = (),
    seat_choice: str = FIRST,
    seat_order: tuple[str, ...] = (),
) -> ChallengeIssued:
    return ChallengeIssued(
        "c1", "ann", "Ann", "takefour", invitees, open_seats, bots, {"kind": "none"},
        seat_choice, False, 100.0, 200.0, seat_order=seat_order,
    )  # fmt: skip


def run(state: Challenge, *commands: ChallengeCommand) -> tuple[Challenge, list[object]]:
    recorded: list[object] = []
    for command in commands:
        events: Sequence[object] = CHALLENGES.decide(state, command)
        for event in events:
            state = CHALLENGES.evolve(state, event)  # type: ignore[arg-type]
        recorded += events
    return state, recorded


def start(**kwargs: object) -> Challenge:
    state, _ = run(CHALLENGES.initial_state(), Issue(issued(**kwargs)))  # type: ignore[arg-type]
    return state


def test_the_invitee_accepts_and_the_game_is_matched_with_the_challenger_first() -> None:
    state, events = run(start(), Accept("bob", "Bob", 150.0, "m1"))
    assert events == [
        ChallengeAccepted("bob", "Bob", 150.0),
        GameMatched("m1", (("ann", "Ann"), ("bob", "Bob")), 150.0),
    ]
    assert state.status == "matched"
    assert state.match_id == "m1"


def test_second_seat_and_a_random_seat_recorded_from_the_draw() -> None:
    state, _ = run(start(seat_choice=SECOND), Accept("bob", "Bob", 150.0, "m1"))
    assert state.seats == (("bob", "Bob"), ("ann", "Ann"))
    state, _ = run(start(seat_choice=RANDOM), Accept("bob", "Bob", 150.0, "m1", (1, 0)))
    assert state.seats == (("bob", "Bob"), ("ann", "Ann"))
    with pytest.raises(InvalidArgument) as no_draw:
        run(start(seat_choice=RANDOM), Accept("bob", "Bob", 150.0, "m1"))
    assert no_draw.value.reason == "BAD_DRAW"


def test_a_retried_accept_changes_nothing() -> None:
    state, _ = run(start(), Accept("bob", "Bob", 150.0, "m1"))
    again, events = run(state, Accept("bob", "Bob", 151.0, "m2"))
    assert events == []
    assert again.match_id == "m1"


def test_several_invitees_an_open_seat_and_bots_wait_for_every_seat() -> None:
    state = start(invitees=("bob", "cy"), open_seats=1, bots=("bot:easy",))
    state, events = run(state, Accept("cy", "Cy", 110.0, "m1"), Accept("dee", "Dee", 120.0, "m2"))
    assert [type(e) for e in events] == [ChallengeAccepted, ChallengeAccepted]
    with pytest.raises(PermissionDenied) as full:
        run(state, Accept("eve", "Eve", 125.0, "m3"))
    assert full.value.reason == "NOT_INVITED"
    state, events = run(state, Accept("bob", "Bob", 130.0, "m4"))
    assert events[-1] == GameMatched(
        "m4",
        (("ann", "Ann"), ("bob", "Bob"), ("cy", "Cy"), ("dee", "Dee"), ("bot:easy", "Bot (easy)")),
        130.0,
    )


def test_a_fixed_order_is_a_rematchs_rotated_seats() -> None:
    state = start(seat_choice=FIXED, seat_order=("bob", "ann"))
    state, _ = run(state, Accept("bob", "Bob", 150.0, "m1"))
    assert state.seats == (("bob", "Bob"), ("ann", "Ann"))


def test_decline_with_a_reason_ends_it() -> None:
    state, events = run(start(), Decline("bob", "too_fast", 150.0))
    assert events == [ChallengeDeclined("bob", "too_fast", 150.0)]
    with pytest.raises(FailedPrecondition) as ended:
        run(state, Accept("bob", "Bob", 151.0, "m1"))
    assert ended.value.reason == "CHALLENGE_DECLINED"
    with pytest.raises(InvalidArgument) as bad:
        run(start(), Decline("bob", "because", 150.0))
    assert bad.value.reason == "BAD_DECLINE_REASON"
    with pytest.raises(PermissionDenied):
        run(start(), Decline("eve", "not_now", 150.0))


def test_only_the_challenger_cancels_and_not_after_the_game_is_made() -> None:
    with pytest.raises(PermissionDenied) as theirs:
        run(start(), Cancel("bob", 150.0))
    assert theirs.value.reason == "NOT_YOUR_CHALLENGE"
    state, events = run(start(), Cancel("ann", 150.0))
    assert events == [ChallengeCancelled(150.0)]
    assert state.status == "cancelled"
    matched, _ = run(start(), Accept("bob", "Bob", 150.0, "m1"))
    with pytest.raises(FailedPrecondition) as made:
        run(matched, Cancel("ann", 160.0))
    assert made.value.reason == "CHALLENGE_MATCHED"


def test_expiry_is_an_event_and_refuses_answers_after_it() -> None:
    state, events = run(start(), Expire(150.0))
    assert events == []
    with pytest.raises(FailedPrecondition) as late:
        run(start(), Accept("bob", "Bob", 200.0, "m1"))
    assert late.value.reason == "CHALLENGE_EXPIRED"
    state, events = run(start(), Expire(200.0))
    assert events == [ChallengeExpired(200.0)]
    assert state.status == "expired"


def test_own_challenge_cannot_be_accepted() -> None:
    with pytest.raises(FailedPrecondition) as own:
        run(start(open_seats=1, invitees=()), Accept("ann", "Ann", 150.0, "m1"))
    assert own.value.reason == "OWN_CHALLENGE"


def test_a_rematch_lapses_and_a_challenge_does_not() -> None:
    _, events = run(start(), Lapse("bob", 150.0))
    assert events == []
    rematch = CHALLENGES.evolve(
        CHALLENGES.initial_state(), replace(issued(seat_choice=FIXED), rematch_of="g1")
    )
    lapsed, events = run(rematch, Lapse("bob", 150.0))
    assert events == [RematchLapsed("bob", 150.0)]
    assert lapsed.status == "lapsed"
    with pytest.raises(FailedPrecondition) as late:
        run(lapsed, Accept("bob", "Bob", 151.0, "m1"))
    assert late.value.reason == "CHALLENGE_LAPSED"
