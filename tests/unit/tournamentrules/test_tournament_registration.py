"""Creating a tournament, its settings, and who may join, withdraw, pause and start it."""

from __future__ import annotations

import dataclasses

import pytest

from parlor.accounts.codec import decode, encode
from parlor.core.decider import execute, replay
from parlor.core.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    ParlorError,
    PermissionDenied,
)
from parlor.tournamentrules import (
    EVENT_TYPES,
    TOURNAMENTS,
    Create,
    Join,
    Pause,
    Rejoin,
    Remove,
    Settings,
    Start,
    Tournament,
    TournamentEvent,
    Withdraw,
    reasons,
)

SWISS = Settings("SWISS", "connect4x4", max_players=4, rounds=3)
ARENA = Settings("ARENA", "takefour", max_players=8, table_size=4, duration_ms=60_000)


def created(settings: Settings = SWISS) -> tuple[Tournament, list[TournamentEvent]]:
    state, events = execute(TOURNAMENTS, TOURNAMENTS.initial_state(), Create(settings, "org", 0))
    return state, list(events)


def run(state: Tournament, *commands: object) -> Tournament:
    for command in commands:
        state, _ = execute(TOURNAMENTS, state, command)  # type: ignore[arg-type]
    return state


def refusal(state: Tournament, command: object) -> ParlorError:
    with pytest.raises(ParlorError) as refused:
        TOURNAMENTS.decide(state, command)  # type: ignore[arg-type]
    return refused.value


def test_create_fills_in_the_documented_defaults() -> None:
    state, events = created()
    settings = state.rules
    assert settings.points_by_place == (2, 0)
    assert settings.bye_points == 2
    assert settings.late_entry_until_round == 2  # half of 3 rounds, rounded up
    four = created(ARENA)[0].rules
    assert four.points_by_place == (6, 4, 2, 0)
    assert four.bye_points == 0
    assert events[0].settings == settings  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"format": "KNOCKOUT"}, "format"),
        ({"table_size": 5}, "table_size"),
        ({"max_players": 1}, "max_players"),
        ({"rounds": 0}, "rounds"),
        ({"rounds": 51}, "rounds"),
        ({"late_entry_until_round": 4}, "late_entry_until_round"),
        ({"bye_points": 3}, "bye_points"),
        ({"berserk": True}, "berserk"),
        ({"duration_ms": 1000}, "duration_ms"),
        ({"points_by_place": (2, 1, 0)}, "points_by_place"),
        ({"points_by_place": (0, 2)}, "points_by_place"),
        ({"points_by_place": (1, 1)}, "points_by_place"),
        ({"clock_initial_ms": 0}, "clock_initial_ms"),
        ({"clock_kind": ""}, "clock_kind"),
        ({"access": "SECRET"}, "access"),
        ({"name": "x" * 101}, "name"),
    ],
)
def test_bad_settings_are_refused_naming_the_field(change: dict[str, object], field: str) -> None:
    bad = dataclasses.replace(SWISS, **change)  # type: ignore[arg-type]
    error = refusal(Tournament(), Create(bad, "org", 0))
    assert isinstance(error, InvalidArgument)
    assert error.reason == reasons.BAD_SETTINGS
    assert error.metadata["field"] == field


def test_arena_settings_are_checked_as_an_arena() -> None:
    for change, field in (
        ({"duration_ms": 999}, "duration_ms"),
        ({"rounds": 3}, "rounds"),
        ({"bye_points": 2}, "bye_points"),
        ({"table_size": 9}, "table_size"),
    ):
        error = refusal(Tournament(), Create(dataclasses.replace(ARENA, **change), "org", 0))  # type: ignore[arg-type]
        assert (error.reason, error.metadata["field"]) == (reasons.BAD_SETTINGS, field)


def test_an_unknown_game_is_refused() -> None:
    error = refusal(Tournament(), Create(dataclasses.replace(SWISS, game_type="chess"), "o", 0))
    assert isinstance(error, InvalidArgument)
    assert error.reason == reasons.UNKNOWN_GAME


def test_only_a_created_tournament_takes_commands_and_only_once_created() -> None:
    assert refusal(Tournament(), Join("ada", False, 1)).reason == reasons.TOURNAMENT_NOT_FOUND
    state, _ = created()
    error = refusal(state, Create(SWISS, "org", 0))
    assert isinstance(error, AlreadyExists)
    assert error.reason == reasons.TOURNAMENT_EXISTS


def test_joining_is_once_up_to_max_players() -> None:
    state, _ = created()
    state = run(state, *(Join(p, p == "dot", 1) for p in ("ada", "bob", "cy", "dot")))
    assert state.entrants["dot"].is_bot
    assert isinstance(refusal(state, Join("ada", False, 2)), AlreadyExists)
    full = refusal(state, Join("eve", False, 2))
    assert isinstance(full, FailedPrecondition)
    assert full.reason == reasons.TOURNAMENT_FULL


def test_an_invite_tournament_takes_only_admitted_joins() -> None:
    state, _ = created(dataclasses.replace(SWISS, access="INVITE"))
    error = refusal(state, Join("ada", False, 1))
    assert isinstance(error, PermissionDenied)
    assert error.reason == reasons.NOT_INVITED
    assert "ada" in run(state, Join("ada", False, 1, admitted=True)).entrants


def test_a_withdrawal_before_the_start_frees_the_place_after_it_is_final() -> None:
    state, _ = created()
    state = run(state, Join("ada", False, 1), Withdraw("ada", 2))
    assert "ada" not in state.entrants
    state = run(state, Join("ada", False, 3), Join("bob", False, 3), Start("org", 4))
    state = run(state, Withdraw("ada", 5))
    assert refusal(state, Join("ada", False, 6)).reason == reasons.ALREADY_WITHDRAWN
    assert refusal(state, Withdraw("ada", 6)).reason == reasons.NOT_REGISTERED
    assert refusal(state, Withdraw("cy", 6)).reason == reasons.NOT_REGISTERED


def test_only_the_organiser_or_an_operator_removes_and_the_removed_stay_out() -> None:
    state, _ = created()
    state = run(state, Join("ada", False, 1), Join("bob", False, 1))
    error = refusal(state, Remove("ada", "bob", "no", 2))
    assert isinstance(error, PermissionDenied)
    assert error.reason == reasons.NOT_ORGANISER
    assert refusal(state, Remove("ada", "org", "x" * 201, 2)).reason == reasons.BAD_REASON
    state = run(state, Remove("ada", "mod", "abuse", 2, by_operator=True))
    assert state.entrants["ada"].status == "REMOVED"
    assert refusal(state, Join("ada", False, 3)).reason == reasons.PLAYER_REMOVED
    assert refusal(state, Remove("ada", "org", "again", 3)).reason == reasons.NOT_REGISTERED


def test_start_needs_the_organiser_and_enough_entrants() -> None:
    state, _ = created()
    state = run(state, Join("ada", False, 1))
    assert refusal(state, Start("org", 2)).reason == reasons.NOT_ENOUGH_PLAYERS
    state = run(state, Join("bob", False, 1))
    assert refusal(state, Start("ada", 2)).reason == reasons.NOT_ORGANISER
    state = run(state, Start("org", 2))
    assert state.phase == "RUNNING"
    assert refusal(state, Start("org", 3)).reason == reasons.ALREADY_STARTED
    arena, _ = created(ARENA)
    arena = run(arena, *(Join(p, False, 1) for p in ("a", "b", "c")))
    assert refusal(arena, Start("org", 2)).reason == reasons.NOT_ENOUGH_PLAYERS
    arena = run(arena, Join("d", False, 1), Start("mod", 2, by_operator=True))
    assert arena.started_at_ms == 2


def test_pause_and_rejoin_once_started() -> None:
    state, _ = created()
    state = run(state, Join("ada", False, 1), Join("bob", False, 1))
    assert refusal(state, Pause("ada", 2)).reason == reasons.NOT_STARTED
    state = run(state, Start("org", 2), Pause("ada", 3))
    assert state.entrants["ada"].status == "PAUSED"
    assert refusal(state, Pause("ada", 4)).reason == reasons.ALREADY_PAUSED
    assert refusal(state, Rejoin("bob", 4)).reason == reasons.NOT_PAUSED
    state = run(state, Rejoin("ada", 5))
    assert state.entrants["ada"].status == "ACTIVE"


def test_events_round_trip_through_the_account_codec_and_replay_to_the_same_state() -> None:
    state, events = created(dataclasses.replace(ARENA, berserk=True))
    for command in (Join("ada", False, 1), Join("bob", True, 1), Remove("bob", "org", "r", 2)):
        state, more = execute(TOURNAMENTS, state, command)
        events += more
    for event in events:
        assert decode(EVENT_TYPES, *encode(event)) == event
    assert replay(TOURNAMENTS, events) == state
