"""The one error hierarchy of Parlor.

Every error a client can cause or observe is a ``ParlorError``. Each class names
the gRPC status code it maps to (by its canonical name, so this module needs no
gRPC); the service kit's interceptor is the single place that turns these into
gRPC statuses, with ``reason`` carried as a ``google.rpc.ErrorInfo`` detail.

``reason`` is machine-readable (UPPER_SNAKE_CASE, stable: clients may switch on
it); ``message`` is for people. Neither may ever contain hidden information
(another player's tiles, the bag).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import ClassVar, Final

_REASON = re.compile(r"^[A-Z][A-Z0-9_]*$")

INVALID_NOTATION: Final = "INVALID_NOTATION"
"""The reason every game gives a move written in notation it cannot read."""

DEPRECATED_REASON: Final = "deprecated_reason"
"""The ErrorInfo metadata key naming the reason a refusal had before it was renamed.

A renamed reason is kept there for a deprecation period, so a client that switched on
the old name can still find it (``parlor.client.ParlorError.has_reason`` and the
TypeScript ``isParlorError`` look there too). Renamed so far: Upwords' ``BAD_NOTATION``
(now ``INVALID_NOTATION``).
"""


class ParlorError(Exception):
    """Base of every error a Parlor client may see."""

    code: ClassVar[str] = "INTERNAL"
    default_reason: ClassVar[str] = "INTERNAL"

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason or self.default_reason
        if not _REASON.match(self.reason):
            raise ValueError(f"error reason must be UPPER_SNAKE_CASE, got {self.reason!r}")
        self.metadata: dict[str, str] = dict(metadata or {})

    def __repr__(self) -> str:
        return f"{type(self).__name__}(reason={self.reason!r}, message={self.message!r})"


class InvalidArgument(ParlorError):
    """The request itself is malformed, whatever the state of the system."""

    code = "INVALID_ARGUMENT"
    default_reason = "INVALID_ARGUMENT"


class InvalidNotation(InvalidArgument):
    """A move written in a game's notation that cannot be read (the same reason in every game).

    ``formerly`` is the reason this game gave before the name was shared; it travels in
    the ErrorInfo metadata under ``deprecated_reason`` until clients have moved on.
    """

    default_reason = INVALID_NOTATION

    def __init__(
        self,
        message: str,
        *,
        formerly: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        extra = {DEPRECATED_REASON: formerly} if formerly else {}
        super().__init__(message, metadata={**(metadata or {}), **extra})


class NotFound(ParlorError):
    """The thing named does not exist (or the caller may not know it exists)."""

    code = "NOT_FOUND"
    default_reason = "NOT_FOUND"


class AlreadyExists(ParlorError):
    code = "ALREADY_EXISTS"
    default_reason = "ALREADY_EXISTS"


class Unauthenticated(ParlorError):
    """No valid credentials came with the call."""

    code = "UNAUTHENTICATED"
    default_reason = "UNAUTHENTICATED"


class PermissionDenied(ParlorError):
    """The caller is known but may not do this (not their seat, not their turn)."""

    code = "PERMISSION_DENIED"
    default_reason = "PERMISSION_DENIED"


class FailedPrecondition(ParlorError):
    """The request is well formed but the state of the system refuses it."""

    code = "FAILED_PRECONDITION"
    default_reason = "FAILED_PRECONDITION"


class RuleViolation(FailedPrecondition):
    """A move breaks a rule of the game; ``rule`` names it (e.g. ``COLUMN_FULL``)."""

    default_reason = "RULE_VIOLATION"

    def __init__(
        self,
        rule: str,
        message: str,
        *,
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message, reason=rule, metadata=metadata)
        self.rule = rule


class Conflict(ParlorError):
    """A concurrent writer got there first (expected version mismatch); retry."""

    code = "ABORTED"
    default_reason = "CONFLICT"


class ResourceExhausted(ParlorError):
    code = "RESOURCE_EXHAUSTED"
    default_reason = "RESOURCE_EXHAUSTED"


class Unavailable(ParlorError):
    """A dependency (database, bus, another service) is down; safe to retry."""

    code = "UNAVAILABLE"
    default_reason = "UNAVAILABLE"


class DeadlineExceeded(ParlorError):
    code = "DEADLINE_EXCEEDED"
    default_reason = "DEADLINE_EXCEEDED"


Translation = Callable[[BaseException], ParlorError | None]
_TRANSLATIONS: list[Translation] = []


def translate_with(translation: Translation) -> Translation:
    """Register how a library's own exceptions (a lost database connection, an exhausted
    pool) are told to clients: as the ``ParlorError`` it returns, or None if not its kind.

    The library that raises them registers it where it is imported (the event store does
    for SQLAlchemy's and psycopg's), so code that reaches a database directly (a
    service's own tables) answers ``UNAVAILABLE`` like the store, never ``INTERNAL``."""
    _TRANSLATIONS.append(translation)
    return translation


def translated(error: BaseException) -> ParlorError | None:
    """``error`` as a client should hear it, if it is a ``ParlorError`` or a kind some
    library registered; None for a true surprise (INTERNAL, with an incident id)."""
    if isinstance(error, ParlorError):
        return error
    for translation in _TRANSLATIONS:
        known = translation(error)
        if known is not None:
            return known
    return None
