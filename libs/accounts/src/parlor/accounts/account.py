"""An account as a decider: its state, the commands it takes, the events it records.

One stream per account (``account-<player id>``). The player id is chosen by the service
(random, unguessable, never derived from a handle or an identity) and arrives in
``CreateAccount``; times arrive in commands too, so ``decide`` and ``evolve`` are pure.

Uniqueness across accounts (a handle, an external identity) cannot be decided inside
one stream: the service claims the handle's skeleton and the identity in streams of
their own (``claims``) before it records the change here.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace

from parlor.accounts.handles import parse_handle
from parlor.core.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound

MAX_DISPLAY_NAME = 64
MAX_ISSUER = 512
MAX_SUBJECT = 255  # OpenID Connect Core 2: sub is at most 255 ASCII characters
MAX_GUESTS = 20
"""Guest ids one account may claim: a player's browsers and devices, not a collection."""
GUEST_ID = re.compile(r"guest-[0-9a-f]{16}")


@dataclass(frozen=True)
class ExternalIdentity:
    """An account at an OpenID Connect provider: its issuer URL and its subject there."""

    issuer: str
    subject: str


# -- events ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AccountCreated:
    player_id: str
    created_at: int
    display_name: str


@dataclass(frozen=True)
class HandleChanged:
    handle: str
    key: str


@dataclass(frozen=True)
class DisplayNameChanged:
    display_name: str


@dataclass(frozen=True)
class IdentityLinked:
    issuer: str
    subject: str


@dataclass(frozen=True)
class IdentityUnlinked:
    issuer: str
    subject: str


@dataclass(frozen=True)
class AccountClosed:
    closed_at: int
    reason: str


@dataclass(frozen=True)
class GuestClaimed:
    """The account took over a guest id (``guests``): its games are the account's."""

    guest_id: str
    claimed_at: int


@dataclass(frozen=True)
class AccountErased:
    """The player asked to be forgotten: the account's key is deleted (crypto-shredding),
    so every personal field its events hold (``PERSONAL``) is unreadable from now on."""

    erased_at: int


@dataclass(frozen=True)
class SessionOpened:
    """A session (refresh token family) began for the account: the index ``ListSessions``
    reads (the session's own stream holds its tokens' hashes)."""

    session_id: str
    opened_at: int


AccountEvent = (
    AccountCreated
    | HandleChanged
    | DisplayNameChanged
    | IdentityLinked
    | IdentityUnlinked
    | AccountClosed
    | GuestClaimed
    | SessionOpened
    | AccountErased
)
EVENT_TYPES: dict[str, type[AccountEvent]] = {
    cls.__name__: cls
    for cls in (
        AccountCreated,
        HandleChanged,
        DisplayNameChanged,
        IdentityLinked,
        IdentityUnlinked,
        AccountClosed,
        GuestClaimed,
        SessionOpened,
        AccountErased,
    )
}
PERSONAL: dict[str, tuple[str, ...]] = {
    "AccountCreated": ("display_name",),
    "HandleChanged": ("handle", "key"),
    "DisplayNameChanged": ("display_name",),
    "IdentityLinked": ("issuer", "subject"),
    "IdentityUnlinked": ("issuer", "subject"),
    "AccountClosed": ("reason",),
}
"""The fields of each event type that are personal data: stored encrypted under the
account's own key, unreadable once it is erased (every other field is ids and times)."""

# -- commands --------------------------------------------------------------------------------


@dataclass(frozen=True)
class CreateAccount:
    player_id: str
    now: int
    display_name: str = ""
    identity: ExternalIdentity | None = None


@dataclass(frozen=True)
class ChangeHandle:
    handle: str


@dataclass(frozen=True)
class ChangeDisplayName:
    display_name: str


@dataclass(frozen=True)
class LinkIdentity:
    identity: ExternalIdentity


@dataclass(frozen=True)
class UnlinkIdentity:
    identity: ExternalIdentity


@dataclass(frozen=True)
class CloseAccount:
    now: int
    reason: str = ""


@dataclass(frozen=True)
class ClaimGuest:
    guest_id: str
    now: int


@dataclass(frozen=True)
class EraseAccount:
    now: int


@dataclass(frozen=True)
class OpenSession:
    session_id: str
    now: int


AccountCommand = (
    CreateAccount
    | ChangeHandle
    | ChangeDisplayName
    | LinkIdentity
    | UnlinkIdentity
    | CloseAccount
    | ClaimGuest
    | OpenSession
    | EraseAccount
)

# -- state -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Account:
    player_id: str = ""
    created_at: int = 0
    handle: str = ""
    handle_key: str = ""
    display_name: str = ""
    identities: tuple[ExternalIdentity, ...] = ()
    closed_at: int = 0
    guests: tuple[str, ...] = ()
    """The guest ids it claimed, in order."""
    sessions: tuple[tuple[str, int], ...] = ()
    """Every session it opened (id, when), oldest first; revoked ones too."""
    erased: bool = False

    @property
    def exists(self) -> bool:
        return bool(self.player_id)

    @property
    def closed(self) -> bool:
        return self.closed_at > 0


def display_name(raw: str) -> str:
    """A display name: NFC, spaces collapsed, at most 64 characters, no control characters."""
    if len(raw) > 4 * MAX_DISPLAY_NAME:
        raise InvalidArgument(
            f"a display name has at most {MAX_DISPLAY_NAME} characters", reason="BAD_NAME"
        )
    text = " ".join(unicodedata.normalize("NFC", raw).split())
    if len(text) > MAX_DISPLAY_NAME:
        raise InvalidArgument(
            f"a display name has at most {MAX_DISPLAY_NAME} characters", reason="BAD_NAME"
        )
    if any(unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs", "Cn") for c in text):
        raise InvalidArgument(
            "a display name may not hold control, format or unassigned characters",
            reason="BAD_NAME",
        )
    return text


def check_guest_id(guest_id: str) -> str:
    """A guest id as ``IssueGuestToken`` mints it: ``guest-`` and 16 lower-case hex digits."""
    if not GUEST_ID.fullmatch(guest_id):
        raise FailedPrecondition("this is not a guest's id", reason="NOT_A_GUEST")
    return guest_id


def check_identity(identity: ExternalIdentity) -> ExternalIdentity:
    if not identity.issuer or len(identity.issuer) > MAX_ISSUER:
        raise InvalidArgument("an identity names its issuer", reason="BAD_IDENTITY")
    if not identity.subject or len(identity.subject) > MAX_SUBJECT:
        raise InvalidArgument(
            f"an identity's subject has 1 to {MAX_SUBJECT} characters", reason="BAD_IDENTITY"
        )
    return identity


class AccountDecider:
    """The account's rules: ``decide`` refuses with a reason, ``evolve`` never does."""

    def initial_state(self) -> Account:
        return Account()

    def is_terminal(self, state: Account) -> bool:
        return state.closed

    def decide(self, state: Account, command: AccountCommand) -> Sequence[AccountEvent]:
        if isinstance(command, CreateAccount):
            if state.exists:
                raise AlreadyExists("this account exists already", reason="ACCOUNT_EXISTS")
            if not command.player_id:
                raise InvalidArgument("an account needs a player id", reason="BAD_PLAYER_ID")
            created: list[AccountEvent] = [
                AccountCreated(command.player_id, command.now, display_name(command.display_name))
            ]
            if command.identity is not None:
                identity = check_identity(command.identity)
                created.append(IdentityLinked(identity.issuer, identity.subject))
            return created
        if not state.exists:
            raise NotFound("no such account", reason="ACCOUNT_NOT_FOUND")
        if state.erased:
            raise FailedPrecondition("this account was erased", reason="ACCOUNT_ERASED")
        if isinstance(command, EraseAccount):
            closed = [] if state.closed else [AccountClosed(command.now, "")]
            return [*closed, AccountErased(command.now)]
        if state.closed:
            raise FailedPrecondition("this account is closed", reason="ACCOUNT_CLOSED")
        if isinstance(command, ChangeHandle):
            handle = parse_handle(command.handle)
            if handle.text == state.handle:
                return []
            return [HandleChanged(handle.text, handle.key)]
        if isinstance(command, ChangeDisplayName):
            name = display_name(command.display_name)
            return [] if name == state.display_name else [DisplayNameChanged(name)]
        if isinstance(command, LinkIdentity):
            identity = check_identity(command.identity)
            if identity in state.identities:
                return []
            return [IdentityLinked(identity.issuer, identity.subject)]
        if isinstance(command, UnlinkIdentity):
            if command.identity not in state.identities:
                raise NotFound(
                    "this identity is not linked to the account", reason="IDENTITY_NOT_LINKED"
                )
            if len(state.identities) == 1:
                raise FailedPrecondition(
                    "the last identity cannot be unlinked: the account could no longer be"
                    " signed into (link another first, or close the account)",
                    reason="LAST_IDENTITY",
                )
            return [IdentityUnlinked(command.identity.issuer, command.identity.subject)]
        if isinstance(command, CloseAccount):
            return [AccountClosed(command.now, command.reason[:200])]
        if isinstance(command, ClaimGuest):
            guest = check_guest_id(command.guest_id)
            if guest in state.guests:
                raise AlreadyExists(
                    "this account claimed this guest id already", reason="GUEST_CLAIMED"
                )
            if len(state.guests) >= MAX_GUESTS:
                raise FailedPrecondition(
                    f"an account claims at most {MAX_GUESTS} guest ids", reason="TOO_MANY_GUESTS"
                )
            return [GuestClaimed(guest, command.now)]
        if isinstance(command, OpenSession):
            return [SessionOpened(command.session_id, command.now)]
        raise InvalidArgument(f"unknown command {type(command).__name__}")  # pragma: no cover

    def evolve(self, state: Account, event: AccountEvent) -> Account:
        if isinstance(event, AccountCreated):
            return Account(
                player_id=event.player_id,
                created_at=event.created_at,
                display_name=event.display_name,
            )
        if isinstance(event, HandleChanged):
            return replace(state, handle=event.handle, handle_key=event.key)
        if isinstance(event, DisplayNameChanged):
            return replace(state, display_name=event.display_name)
        if isinstance(event, IdentityLinked):
            linked = ExternalIdentity(event.issuer, event.subject)
            return replace(state, identities=(*state.identities, linked))
        if isinstance(event, IdentityUnlinked):
            gone = ExternalIdentity(event.issuer, event.subject)
            return replace(state, identities=tuple(i for i in state.identities if i != gone))
        if isinstance(event, AccountClosed):
            return replace(state, closed_at=event.closed_at)
        if isinstance(event, GuestClaimed):
            return replace(state, guests=(*state.guests, event.guest_id))
        if isinstance(event, SessionOpened):
            opened = (event.session_id, event.opened_at)
            return replace(state, sessions=(*state.sessions, opened))
        if isinstance(event, AccountErased):
            return replace(
                state, erased=True, handle="", handle_key="", display_name="", identities=()
            )
        return state  # pragma: no cover


ACCOUNTS = AccountDecider()
