"""The bot account decider: pure rules over its events."""

from __future__ import annotations

from typing import Any

import pytest

from parlor.core.errors import (
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    Unauthenticated,
)
from parlor.services.matchmaking import botaccount as rules
from parlor.services.matchmaking.botaccount import BotAccount, BotRegistered, SecretIssued


def fold(*events: rules.BotEvent) -> BotAccount:
    state = BotAccount()
    for event in events:
        state = rules.evolve(state, event)
    return state


REGISTERED = BotRegistered("botacct-1", "acct-owner", "ann", "ann", "plays", 10)


def test_registered_with_a_secret_signs_in_with_it_only() -> None:
    state = fold(REGISTERED, *rules.issue_secret(fold(REGISTERED), "acct-owner", "d1", 11))
    assert state.secret_digest == "d1"
    rules.may_sign_in(state, digest_matches=True)
    with pytest.raises(Unauthenticated):
        rules.may_sign_in(state, digest_matches=False)
    with pytest.raises(Unauthenticated):
        rules.may_sign_in(BotAccount(), digest_matches=True)


def test_registering_the_same_id_again_changes_nothing() -> None:
    assert rules.register(fold(REGISTERED), "botacct-1", "acct-x", "bob", "bob", "", 12) == []


def test_revoked_then_reissued() -> None:
    state = fold(REGISTERED, SecretIssued("d1", 11))
    revoked = fold(
        REGISTERED, SecretIssued("d1", 11), *rules.revoke_secret(state, "acct-owner", 12)
    )
    assert revoked.secret_digest == ""
    assert rules.revoke_secret(revoked, "acct-owner", 13) == []
    with pytest.raises(Unauthenticated):
        rules.may_sign_in(revoked, digest_matches=True)


def test_only_the_owner_and_not_once_disabled() -> None:
    state = fold(REGISTERED, SecretIssued("d1", 11))
    with pytest.raises(PermissionDenied) as other:
        rules.issue_secret(state, "acct-other", "d2", 12)
    assert other.value.reason == "NOT_YOUR_BOT"
    disabled = fold(REGISTERED, SecretIssued("d1", 11), *rules.disable(state, "spam", 12))
    assert rules.disable(disabled, "again", 13) == []
    for act in (
        lambda: rules.issue_secret(disabled, "acct-owner", "d3", 13),
        lambda: rules.may_sign_in(disabled, digest_matches=True),
    ):
        with pytest.raises(PermissionDenied) as refused:
            act()
        assert refused.value.reason == "BOT_DISABLED"


def test_a_withdrawn_registration_is_no_bot() -> None:
    state = fold(REGISTERED, rules.RegistrationWithdrawn(11))
    assert not state.exists
    with pytest.raises(NotFound):
        rules.issue_secret(state, "acct-owner", "d1", 12)


@pytest.mark.parametrize("text", ["x" * 281, "tab\there", "nul\x00"])
def test_descriptions_and_reasons_are_bounded_and_printable(text: str) -> None:
    with pytest.raises(InvalidArgument):
        rules.description(text)
    with pytest.raises(InvalidArgument):
        rules.disable(fold(REGISTERED), text, 12)


BLITZ = {"kind": 3, "initial_seconds": 180, "increment_seconds": 2, "move_seconds": 0}
DAILY = {"kind": 4, "initial_seconds": 0, "increment_seconds": 0, "move_seconds": 86400}
NONE = {"kind": 1, "initial_seconds": 0, "increment_seconds": 0, "move_seconds": 0}


def declared(**overrides: object) -> rules.Accepts | None:
    fields: dict[str, object] = {
        "game_types": ["connect4x4"],
        "time_controls": [DAILY],
        "rated": rules.RATED_EITHER,
        "max_games": 2,
    }
    fields.update(overrides)
    state = fold(REGISTERED)
    (event,) = rules.declare(state, "botacct-1", now=12, **fields)  # type: ignore[arg-type]
    return fold(REGISTERED, event).accepts


def test_a_declaration_is_the_bots_own_and_bounded() -> None:
    with pytest.raises(PermissionDenied) as other:
        rules.declare(fold(REGISTERED), "acct-owner", ["connect4x4"], [], "either", 1, 12)
    assert other.value.reason == "NOT_THIS_BOT"
    for bad in ({"max_games": 0}, {"max_games": 65}, {"game_types": []}, {"rated": "x"}):
        with pytest.raises(InvalidArgument):
            declared(**bad)


def test_what_a_bot_cannot_take_is_declined_with_a_reason() -> None:
    accepts = declared()
    assert rules.screen(None, "connect4x4", DAILY, False, 0) == rules.NOT_THIS_GAME
    assert rules.screen(accepts, "connect4x4", DAILY, False, 0) is None
    assert rules.screen(accepts, "upwords", DAILY, False, 0) == rules.NOT_THIS_GAME
    assert rules.screen(accepts, "connect4x4", BLITZ, False, 0) == rules.TOO_FAST
    assert rules.screen(accepts, "connect4x4", NONE, False, 0) == rules.TOO_SLOW
    assert rules.screen(accepts, "connect4x4", DAILY, False, 2) == rules.NOT_NOW
    assert rules.screen(declared(rated="rated"), "connect4x4", DAILY, False, 0) == "not_this_game"
    assert rules.screen(declared(rated="casual"), "connect4x4", DAILY, True, 0) == "not_this_game"
    assert rules.screen(declared(time_controls=[]), "connect4x4", BLITZ, True, 1) is None


# -- the matchmaker's bots ---------------------------------------------------------------------


def offered(matchmaking: bool = True, max_games: int = 2) -> rules.AcceptsDeclared:
    return rules.AcceptsDeclared(["connect4x4"], [], rules.RATED_EITHER, max_games, 20, matchmaking)


def test_a_bot_is_available_once_it_offers_itself_until_it_runs_out_of_time() -> None:
    assert not fold(REGISTERED).available  # nothing declared
    assert not fold(REGISTERED, offered(matchmaking=False)).available
    state = fold(REGISTERED, offered())
    assert state.available
    marked = fold(REGISTERED, offered(), *rules.mark_unavailable(state, "connect4x4-g1", 30))
    assert (marked.available, marked.unavailable_since) == (False, "connect4x4-g1")
    assert rules.mark_unavailable(marked, "connect4x4-g2", 31) == []  # marked once
    assert fold(REGISTERED, offered(), rules.MarkedUnavailable("c-g1", 30), offered()).available
    assert not fold(REGISTERED, offered(), rules.BotDisabled("abuse", 40)).available


def test_the_budget_is_a_rate_over_any_hour() -> None:
    hour = rules.BUDGET_WINDOW_SECONDS
    sought = [rules.BotGameSought("b1", 1000.0), rules.BotGameSought("b2", 1500.0)]
    with pytest.raises(ResourceExhausted) as refused:
        rules.spend_budget(sought, "b3", 2, 2000.0)
    assert refused.value.reason == "BOT_GAMES_BUDGET"
    assert refused.value.metadata["retry_after_seconds"] == str(1000 + hour - 2000)
    # the oldest one leaves the window: one more
    assert rules.spend_budget(sought, "b3", 2, 1000.0 + hour + 1) == rules.BotGameSought(
        "b3", 1000.0 + hour + 1
    )


def candidate(bot_id: str, playing: int, rating: float, *events: rules.BotEvent) -> Any:
    bot = fold(BotRegistered(bot_id, "acct-o", bot_id, bot_id, "", 1), offered(), *events)
    return rules.Candidate(bot, playing, rating)


def test_the_least_busy_fitting_bot_is_chosen_then_the_nearest_rating() -> None:
    full = candidate("botacct-full", 2, 1500)  # at its max_games
    busy = candidate("botacct-busy", 1, 1500)
    far = candidate("botacct-far", 0, 1900)
    near = candidate("botacct-near", 0, 1520)
    gone = candidate("botacct-gone", 0, 1500, rules.MarkedUnavailable("c-g", 5))
    low = candidate("botacct-low", 0, 900)
    chosen = rules.choose(
        [full, busy, far, near, gone, low], "connect4x4", {}, False, 1000, 2000, 1500
    )
    assert [c.bot.bot_id for c in chosen] == ["botacct-near", "botacct-far", "botacct-busy"]
    assert rules.choose([near], "upwords", {}, False, 0, 9999, 1500) == []
