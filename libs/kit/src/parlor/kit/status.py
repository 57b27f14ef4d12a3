"""The one place where Parlor's errors become gRPC statuses (and back, for clients).

A ``ParlorError`` becomes its status code, its message, and a
``google.rpc.ErrorInfo`` detail carrying the machine-readable ``reason``
(domain ``parlor.dev``), following Google's AIP-193. Any other exception is an
``INTERNAL`` error whose message reveals nothing but an id to find it in logs.
"""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from parlor.core import errors

DOMAIN = "parlor.dev"
# An error never carries more than this much of anything (a client's input it quotes
# included): a status travels in trailers, and a large one is refused by the transport
# (RESOURCE_EXHAUSTED "Stream removed") instead of reaching the client.
MAX_MESSAGE = 512
MAX_METADATA_VALUE = 128
# What an unforeseen failure tells the caller: an id to find its traceback in the logs.
INCIDENT_MESSAGE = "internal error (incident {})"


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, marked when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


CODES: dict[str, grpc.StatusCode] = {code.name: code for code in grpc.StatusCode}

_BY_CODE: dict[grpc.StatusCode, type[errors.ParlorError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: errors.InvalidArgument,
    grpc.StatusCode.NOT_FOUND: errors.NotFound,
    grpc.StatusCode.ALREADY_EXISTS: errors.AlreadyExists,
    grpc.StatusCode.UNAUTHENTICATED: errors.Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: errors.PermissionDenied,
    grpc.StatusCode.FAILED_PRECONDITION: errors.FailedPrecondition,
    grpc.StatusCode.ABORTED: errors.Conflict,
    grpc.StatusCode.RESOURCE_EXHAUSTED: errors.ResourceExhausted,
    grpc.StatusCode.UNAVAILABLE: errors.Unavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: errors.DeadlineExceeded,
}


def status_code(error: errors.ParlorError) -> grpc.StatusCode:
    return CODES[error.code]


def to_status(error: errors.ParlorError) -> grpc.Status:
    """The gRPC status for an error, with its reason as an ErrorInfo detail."""
    code = status_code(error)
    metadata = {
        clip(k, MAX_METADATA_VALUE): clip(v, MAX_METADATA_VALUE)
        for k, v in list(error.metadata.items())[:16]
    }
    info = error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN, metadata=metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    message = clip(error.message, MAX_MESSAGE)
    proto = status_pb2.Status(code=code.value[0], message=message, details=[detail])
    status: grpc.Status = rpc_status.to_status(proto)
    return status


def reason_of(error: grpc.RpcError) -> str | None:
    """The machine-readable reason a Parlor server attached to an error, if any."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return str(info.reason)
    return None


def from_rpc_error(error: grpc.RpcError) -> errors.ParlorError:
    """Turn a failed call to another Parlor service back into a ParlorError."""
    code = error.code()  # type: ignore[attr-defined]
    details = error.details() or code.name  # type: ignore[attr-defined]
    cls = _BY_CODE.get(code, errors.ParlorError)
    reason = reason_of(error)
    if cls is errors.ParlorError:
        return errors.Unavailable(f"upstream call failed with {code.name}: {details}")
    return cls(details, reason=reason)
