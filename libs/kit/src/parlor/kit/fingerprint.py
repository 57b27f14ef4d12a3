"""The fingerprint of the request being served: what makes a command id's command "the same".

A command id makes a command idempotent, as an idempotency key does a payment: a
retry with the same id and the same command gets the first outcome; the same id
with a different command is refused (``COMMAND_ID_REUSED``). The canonical form of
a command is the RPC that carries it: the method's full name and its request in
protobuf's deterministic encoding. The interceptor binds each request here; the
game host asks ``request_fingerprint()`` when it stores or checks a client's command
id. Fingerprints are stored beside command ids only, never in events, never on the
bus, and never shown: a request can hold hidden tiles (an Upwords exchange).
"""

from __future__ import annotations

import contextvars
import hashlib
from typing import Any

_request: contextvars.ContextVar[tuple[str, Any] | None] = contextvars.ContextVar(
    "parlor_request", default=None
)


def fingerprint(method: str, request: Any) -> str:
    """SHA-256 of the method and the request's deterministic encoding, in hex."""
    body: bytes = request.SerializeToString(deterministic=True)
    return hashlib.sha256(method.encode() + b"\x00" + body).hexdigest()


def bind_request(method: str, request: Any) -> None:
    """The request the current RPC serves (the interceptor calls this, once per call)."""
    _request.set((method, request))


def request_fingerprint() -> str | None:
    """The fingerprint of the request being served, or None outside an RPC."""
    held = _request.get()
    return None if held is None else fingerprint(*held)
