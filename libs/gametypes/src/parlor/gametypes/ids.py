"""Ids as the platform takes them: a client's (a game's, a command's, a match's: non-empty,
short, safe as stream ids and NATS tokens) and the platform's own command ids
(``parlor:<kind>-...``), which no client can send."""

from __future__ import annotations

import re

from parlor.core.errors import InvalidArgument

MAX_ID_LENGTH = 128


_CLIENT_ID = re.compile(r"[A-Za-z0-9_-]+")
"""The client alphabet: ASCII letters and digits, ``-`` and ``_`` (one match, where a
generator over the characters took a call per character, several ids per move)."""


def check_id(value: str, what: str) -> str:
    """Ids come from clients: non-empty, short, and safe as stream ids and NATS tokens."""
    if not value or len(value) > MAX_ID_LENGTH:
        raise InvalidArgument(
            f"{what} must be 1 to {MAX_ID_LENGTH} characters", reason=f"INVALID_{what.upper()}"
        )
    if _CLIENT_ID.fullmatch(value) is None:
        raise InvalidArgument(
            f"{what} may hold only letters, digits, '-' and '_'", reason=f"INVALID_{what.upper()}"
        )
    return value


SYSTEM_PREFIX = "parlor:"
"""The namespace of platform-issued command ids: ``:`` is outside the client alphabet."""


class SystemCommandId(str):
    """A command id the platform issues itself; made only by ``system_command_id``."""

    __slots__ = ()


def system_command_id(kind: str, *parts: object) -> SystemCommandId:
    """``parlor:<kind>-<part>-...``: an id no client can send (see ``check_id``)."""
    return SystemCommandId(SYSTEM_PREFIX + "-".join((kind, *(str(p) for p in parts))))


def check_command_id(command_id: str) -> str:
    """A platform id passes as made; a client's must be in the client alphabet."""
    if isinstance(command_id, SystemCommandId):
        return str(command_id)
    return check_id(command_id, "command_id")
