"""Calling a servicer in-process as a given caller (what the auth interceptor binds)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from parlor.kit import auth


async def as_(identity: auth.Identity | str, call: Any) -> Any:
    """Await ``call`` (a servicer's RPC coroutine) with ``identity`` as the caller."""
    token = auth.bind(auth.Identity(identity) if isinstance(identity, str) else identity)
    try:
        return await call
    finally:
        auth.unbind(token)


@contextlib.contextmanager
def calling(player: str, *roles: str) -> Iterator[None]:
    """Within the block, ``player`` (with ``roles``) is the caller."""
    token = auth.bind(auth.Identity(player, roles=roles))
    try:
        yield
    finally:
        auth.unbind(token)
