"""The account decider: created, handle and display name changed, identities, closed."""

from __future__ import annotations

import pytest

from parlor.accounts import (
    ACCOUNTS,
    EVENT_TYPES,
    PERSONAL,
    Account,
    AccountClosed,
    AccountCommand,
    AccountCreated,
    AccountErased,
    ChangeDisplayName,
    ChangeHandle,
    ClaimGuest,
    CloseAccount,
    CreateAccount,
    EraseAccount,
    ExternalIdentity,
    GuestClaimed,
    HandleChanged,
    IdentityLinked,
    LinkIdentity,
    OpenSession,
    SessionOpened,
    UnlinkIdentity,
    decode,
    encode,
)
from parlor.accounts.account import MAX_GUESTS
from parlor.core.decider import execute, replay
from parlor.core.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ParlorError,
)

GOOGLE = ExternalIdentity("https://accounts.example", "1234")
GITHUB = ExternalIdentity("https://dex.example", "abcd")


def created() -> Account:
    state, _ = execute(
        ACCOUNTS, ACCOUNTS.initial_state(), CreateAccount("acct-1", 100, "Ann", GOOGLE)
    )
    return state


def refused(state: Account, command: AccountCommand) -> ParlorError:
    with pytest.raises(ParlorError) as error:
        ACCOUNTS.decide(state, command)
    return error.value


def test_creating_records_the_account_and_its_identity() -> None:
    events = ACCOUNTS.decide(
        ACCOUNTS.initial_state(), CreateAccount("acct-1", 100, " Ann  Lee ", GOOGLE)
    )
    assert events == [
        AccountCreated("acct-1", 100, "Ann Lee"),
        IdentityLinked(GOOGLE.issuer, GOOGLE.subject),
    ]
    state = replay(ACCOUNTS, events)
    assert (state.player_id, state.display_name, state.identities) == (
        "acct-1",
        "Ann Lee",
        (GOOGLE,),
    )
    assert not ACCOUNTS.is_terminal(state)


def test_an_account_is_created_once() -> None:
    assert isinstance(refused(created(), CreateAccount("acct-1", 1)), AlreadyExists)


def test_nothing_but_creation_happens_to_a_missing_account() -> None:
    error = refused(ACCOUNTS.initial_state(), ChangeHandle("ann"))
    assert isinstance(error, NotFound)
    assert error.reason == "ACCOUNT_NOT_FOUND"


def test_handle_changes_carry_the_normalised_handle_and_its_key() -> None:
    state = created()
    assert ACCOUNTS.decide(state, ChangeHandle("B0b")) == [HandleChanged("b0b", "bob")]
    state, _ = execute(ACCOUNTS, state, ChangeHandle("Bob"))
    assert (state.handle, state.handle_key) == ("bob", "bob")
    assert ACCOUNTS.decide(state, ChangeHandle("BOB")) == []


def test_a_bad_handle_is_refused_with_its_reason() -> None:
    assert refused(created(), ChangeHandle("admin")).reason == "HANDLE_RESERVED"


def test_display_names_are_bounded_and_printable() -> None:
    state = created()
    assert refused(state, ChangeDisplayName("x" * 65)).reason == "BAD_NAME"
    assert refused(state, ChangeDisplayName("a\u202eb")).reason == "BAD_NAME"
    state, _ = execute(ACCOUNTS, state, ChangeDisplayName("Zoë"))
    assert state.display_name == "Zoë"
    assert ACCOUNTS.decide(state, ChangeDisplayName("Zoë")) == []


def test_identities_link_and_unlink_but_never_the_last() -> None:
    state = created()
    assert refused(state, UnlinkIdentity(GOOGLE)).reason == "LAST_IDENTITY"
    assert refused(state, UnlinkIdentity(GITHUB)).reason == "IDENTITY_NOT_LINKED"
    state, _ = execute(ACCOUNTS, state, LinkIdentity(GITHUB))
    assert ACCOUNTS.decide(state, LinkIdentity(GITHUB)) == []
    state, _ = execute(ACCOUNTS, state, UnlinkIdentity(GOOGLE))
    assert state.identities == (GITHUB,)
    bad = refused(state, LinkIdentity(ExternalIdentity("https://x", "s" * 256)))
    assert isinstance(bad, InvalidArgument)
    assert bad.reason == "BAD_IDENTITY"


def test_a_closed_account_takes_no_command() -> None:
    state, events = execute(ACCOUNTS, created(), CloseAccount(200, "asked"))
    assert events == [AccountClosed(200, "asked")]
    assert state.closed
    assert ACCOUNTS.is_terminal(state)
    for command in (
        ChangeHandle("ann"),
        ChangeDisplayName("x"),
        LinkIdentity(GITHUB),
        CloseAccount(3),
    ):
        error = refused(state, command)
        assert isinstance(error, FailedPrecondition)
        assert error.reason == "ACCOUNT_CLOSED"


def test_events_round_trip_through_the_codec() -> None:
    state = created()
    events = [
        *ACCOUNTS.decide(ACCOUNTS.initial_state(), CreateAccount("acct-1", 100, "Ann", GOOGLE)),
        *ACCOUNTS.decide(state, ChangeHandle("ann")),
        *ACCOUNTS.decide(state, CloseAccount(5)),
    ]
    for event in events:
        assert decode(EVENT_TYPES, *encode(event)) == event
    with pytest.raises(InvalidArgument):
        decode(EVENT_TYPES, "Nope", b"{}")


GUEST = "guest-0123456789abcdef"


def test_an_account_claims_guest_ids_once_each_and_a_bounded_number() -> None:
    state = created()
    assert ACCOUNTS.decide(state, ClaimGuest(GUEST, 300)) == [GuestClaimed(GUEST, 300)]
    state, _ = execute(ACCOUNTS, state, ClaimGuest(GUEST, 300))
    assert state.guests == (GUEST,)
    again = refused(state, ClaimGuest(GUEST, 301))
    assert (type(again), again.reason) == (AlreadyExists, "GUEST_CLAIMED")
    for bad in ("acct-0123456789abcdef", "guest-0123", "bot:greedy", "guest-0123456789ABCDEF"):
        error = refused(state, ClaimGuest(bad, 302))
        assert (type(error), error.reason) == (FailedPrecondition, "NOT_A_GUEST")
    for n in range(1, MAX_GUESTS):
        state, _ = execute(ACCOUNTS, state, ClaimGuest(f"guest-{n:016x}", 400 + n))
    assert len(state.guests) == MAX_GUESTS
    assert refused(state, ClaimGuest("guest-ffffffffffffffff", 500)).reason == "TOO_MANY_GUESTS"
    closed, _ = execute(ACCOUNTS, created(), CloseAccount(600))
    assert refused(closed, ClaimGuest(GUEST, 601)).reason == "ACCOUNT_CLOSED"


def test_sessions_opened_are_listed_in_the_account() -> None:
    state, events = execute(ACCOUNTS, created(), OpenSession("f" * 32, 700))
    assert events == [SessionOpened("f" * 32, 700)]
    state, _ = execute(ACCOUNTS, state, OpenSession("e" * 32, 800))
    assert state.sessions == (("f" * 32, 700), ("e" * 32, 800))
    for event in (*events, GuestClaimed(GUEST, 1)):
        assert decode(EVENT_TYPES, *encode(event)) == event


def test_erasing_closes_forgets_and_takes_no_command_after() -> None:
    state, _ = execute(ACCOUNTS, created(), ChangeHandle("ann"))
    state, events = execute(ACCOUNTS, state, EraseAccount(900))
    assert events == [AccountClosed(900, ""), AccountErased(900)]
    assert (state.erased, state.closed, state.handle, state.display_name) == (True, True, "", "")
    assert state.identities == ()
    assert state.player_id == "acct-1"  # the id stays: games name the player by it
    for command in (EraseAccount(901), ChangeHandle("bob"), ClaimGuest(GUEST, 902)):
        assert refused(state, command).reason == "ACCOUNT_ERASED"
    closed, _ = execute(ACCOUNTS, created(), CloseAccount(5))
    assert ACCOUNTS.decide(closed, EraseAccount(6)) == [AccountErased(6)]
    assert set(PERSONAL) <= set(EVENT_TYPES)
