"""A failed call as a Python exception: one class per family of gRPC codes, with the reason.

A Parlor server sends, with every error, a ``google.rpc.Status`` in the
``grpc-status-details-bin`` trailer whose details hold a ``google.rpc.ErrorInfo``
(domain ``parlor.dev``): a stable ``reason`` (``NOT_YOUR_TURN``, ``ROUND_CHANGED``...)
and ``metadata``. :func:`error_from` reads it; a client switches on the class for the
kind of error and on ``reason`` for what exactly happened.

A reason that was renamed keeps its old name in the metadata, under
``deprecated_reason``, for a deprecation period (Upwords' ``BAD_NOTATION`` is now
``INVALID_NOTATION``, the reason of every game): :meth:`ParlorError.has_reason` answers
for either name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import grpc
from google.rpc import error_details_pb2, status_pb2

DOMAIN = "parlor.dev"
DETAILS_KEY = "grpc-status-details-bin"
DEPRECATED_REASON = "deprecated_reason"


class ParlorError(Exception):
    """Any failed call. ``code`` is the gRPC status, ``reason`` the ErrorInfo reason."""

    codes: ClassVar[tuple[grpc.StatusCode, ...]] = ()

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        reason: str = "",
        metadata: Mapping[str, str] | None = None,
        domain: str = "",
    ) -> None:
        super().__init__(f"{code.name} {reason or '-'}: {message}")
        self.code = code
        self.message = message
        self.reason = reason or code.name
        self.metadata: dict[str, str] = dict(metadata or {})
        self.domain = domain

    def has_reason(self, reason: str) -> bool:
        """True if ``reason`` is this error's reason, or the name it had before it was renamed."""
        return reason in (self.reason, self.metadata.get(DEPRECATED_REASON))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code.name}, reason={self.reason!r})"


class InvalidArgument(ParlorError):
    """The request is malformed whatever the game's state: fix it, never retry it."""

    codes = (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.OUT_OF_RANGE)


class NotFound(ParlorError):
    codes = (grpc.StatusCode.NOT_FOUND,)


class AlreadyExists(ParlorError):
    codes = (grpc.StatusCode.ALREADY_EXISTS,)


class Unauthenticated(ParlorError):
    """No valid token came with the call (missing, expired, signed by an unknown key)."""

    codes = (grpc.StatusCode.UNAUTHENTICATED,)


class PermissionDenied(ParlorError):
    """The caller is known but may not do this (``NOT_SEATED``, ``NOT_YOUR_TURN``...)."""

    codes = (grpc.StatusCode.PERMISSION_DENIED,)


class FailedPrecondition(ParlorError):
    """The game's state refuses the command: ``reason`` names the rule (``ROUND_CHANGED``...)."""

    codes = (grpc.StatusCode.FAILED_PRECONDITION,)


class Aborted(ParlorError):
    """Too many writers at once (``TOO_MANY_CONFLICTS``): safe to retry with the same id."""

    codes = (grpc.StatusCode.ABORTED,)


class ResourceExhausted(ParlorError):
    codes = (grpc.StatusCode.RESOURCE_EXHAUSTED,)


class Unavailable(ParlorError):
    """The server or one of its dependencies is down, or the call ran out of time."""

    codes = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


class Cancelled(ParlorError):
    codes = (grpc.StatusCode.CANCELLED,)


class Unimplemented(ParlorError):
    """The server has no such call (an older server, or a service it does not run)."""

    codes = (grpc.StatusCode.UNIMPLEMENTED,)


class Internal(ParlorError):
    """A bug on the server; its message names an id to find it in the server's logs."""

    codes = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.DATA_LOSS)


FAMILIES: tuple[type[ParlorError], ...] = (
    InvalidArgument,
    NotFound,
    AlreadyExists,
    Unauthenticated,
    PermissionDenied,
    FailedPrecondition,
    Aborted,
    ResourceExhausted,
    Unavailable,
    Cancelled,
    Unimplemented,
    Internal,
)
_BY_CODE = {code: family for family in FAMILIES for code in family.codes}


def error_info(trailing_metadata: Any) -> error_details_pb2.ErrorInfo | None:
    """The ErrorInfo in a call's ``grpc-status-details-bin`` trailer, if there is one."""
    for key, value in tuple(trailing_metadata or ()):
        if key != DETAILS_KEY:
            continue
        status = status_pb2.Status()
        try:
            status.ParseFromString(value if isinstance(value, bytes) else str(value).encode())
        except Exception:  # a trailer that is not a Status: no details to read
            return None
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                return info
    return None


def error_from(error: grpc.RpcError) -> ParlorError:
    """The exception for a failed call (``grpc.aio.AioRpcError`` or a sync ``grpc.RpcError``)."""
    code: grpc.StatusCode = error.code() or grpc.StatusCode.UNKNOWN  # type: ignore[attr-defined]
    message = str(error.details() or "")  # type: ignore[attr-defined]
    info = error_info(error.trailing_metadata())  # type: ignore[attr-defined]
    family = _BY_CODE.get(code, Internal)
    if info is None:
        return family(code, message)
    return family(code, message, info.reason, dict(info.metadata), info.domain)
