"""A failed call as HTTP: the status from the gRPC code, and the code, message and reason as JSON.

The body is the JSON form of ``google.rpc.Status`` (``code`` as a number, ``message``,
``details`` with ``@type``, each detail a message the services attach), plus ``status``
(the code's name) and ``reason`` / ``metadata`` lifted from the ``google.rpc.ErrorInfo``
detail so a client need not dig for them. HTTP statuses follow the mapping of
google.api.http (grpc-gateway, Envoy's transcoder).

Only a Parlor service's own answer (its ErrorInfo, domain ``parlor.dev``) is passed on as
it came. Any other error was made by gRPC: the bridge's channel ("failed to connect to all
addresses; last error: ... ipv4:10.244.3.17:50051: Connection refused", "errors resolving
upwords:50051"), gRPC's own refusals, or a service's unforeseen failure; its words name the
inside of the deployment, so the browser gets the bridge's words and a reason instead (the
code is kept: a client retries UNAVAILABLE), an incident id if the service gave one, and the
log gets what gRPC said.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import json_format
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from parlor.kit.status import DOMAIN, INCIDENT_MESSAGE

log = logging.getLogger("parlor.webgateway")

HTTP_STATUS: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.OK: 200,
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
    grpc.StatusCode.UNAUTHENTICATED: 401,
}
_BY_NAME = {code.name: code for code in grpc.StatusCode}
# What the browser is told of an error no Parlor service worded (see above), by code.
_OWN_WORDS: dict[grpc.StatusCode, tuple[str, str]] = {
    grpc.StatusCode.UNAVAILABLE: (
        "SERVICE_UNAVAILABLE",
        "the service is unavailable; try again shortly",
    ),
    grpc.StatusCode.DEADLINE_EXCEEDED: ("SERVICE_TIMEOUT", "the service did not answer in time"),
    grpc.StatusCode.RESOURCE_EXHAUSTED: (
        "MESSAGE_TOO_LARGE",
        "the request or its answer is larger than the services take",
    ),
    grpc.StatusCode.UNIMPLEMENTED: ("METHOD_NOT_SERVED", "no service here serves this method"),
    grpc.StatusCode.CANCELLED: ("CANCELLED", "the call was cancelled"),
}
_INTERNAL = ("INTERNAL_ERROR", "internal error")
_INCIDENT = re.compile(re.escape(INCIDENT_MESSAGE).replace(r"\{\}", "([0-9a-f]{1,32})"))


@dataclass
class BridgeError(Exception):
    """An error to answer with: raised by the bridge itself or made from a failed call."""

    http_status: int
    status: str  # the gRPC code's name
    reason: str
    message: str
    metadata: dict[str, str] = field(default_factory=dict)
    details: list[dict[str, Any]] = field(default_factory=list)

    def body(self) -> dict[str, Any]:
        return error_body(self.status, self.message, self.reason, self.metadata, self.details)


def error_body(
    status: str,
    message: str,
    reason: str,
    metadata: dict[str, str] | None = None,
    details: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "code": _BY_NAME[status].value[0],
        "status": status,
        "message": message,
        "reason": reason,
        "metadata": metadata or {},
        "details": details or [],
    }


def from_rpc_error(error: grpc.RpcError) -> BridgeError:
    code: grpc.StatusCode = error.code()  # type: ignore[attr-defined]
    message = error.details() or ""  # type: ignore[attr-defined]
    reason, metadata, details = "", {}, []
    status: status_pb2.Status | None = None
    try:
        status = rpc_status.from_call(error)  # type: ignore[arg-type]
    except ValueError:  # status details that disagree with the code: keep the code
        status = None
    parlor = False
    for detail in status.details if status is not None else ():
        try:
            details.append(json_format.MessageToDict(detail))
        except (json_format.Error, TypeError):  # a detail type this bridge does not know
            continue
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason, metadata = info.reason, dict(info.metadata)
            parlor = parlor or info.domain == DOMAIN
    if not parlor:
        return _own_words(code, message)
    return BridgeError(HTTP_STATUS.get(code, 500), code.name, reason, message, metadata, details)


def _own_words(code: grpc.StatusCode, said: str) -> BridgeError:
    """An error no Parlor service worded, as the browser may see it; what gRPC said is logged."""
    log.warning("call failed outside the services", extra={"code": code.name, "said": said})
    reason, message = _OWN_WORDS.get(code, _INTERNAL)
    metadata = {}
    incident = _INCIDENT.fullmatch(said) if code == grpc.StatusCode.INTERNAL else None
    if incident is not None:
        metadata["incident"] = incident.group(1)
        message = said
    return BridgeError(HTTP_STATUS.get(code, 500), code.name, reason, message, metadata)
