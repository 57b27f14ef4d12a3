"""Times into protobuf ``Timestamp`` fields, on the paths every view and event takes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def set_timestamp(message: Any, at: datetime) -> None:
    """``message.FromDatetime(at)`` (a naive time taken as UTC), in two assignments:
    protobuf's goes through ``utctimetuple`` and ``calendar.timegm``, in Python, for every
    clock of a view and every event's ``recorded_at``."""
    since = (at if at.tzinfo is not None else at.replace(tzinfo=UTC)) - _EPOCH
    message.seconds = since.days * 86400 + since.seconds
    message.nanos = since.microseconds * 1000
