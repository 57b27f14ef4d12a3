"""Log lines that join traces: the trace and span ids, the game id and the command id.

``LogContext`` is a ``logging.Filter``; on a handler it gives every record it passes the
ids of the current span (when one is recording) and the fields bound for the current
request or message (``bind``/``bound``), so a log line can be found from its trace and the
other way round. The JSON formatter writes record attributes as keys; nothing is added
when there is nothing to add.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import Iterator, Mapping

from opentelemetry import trace

_EMPTY: Mapping[str, str] = {}
_fields: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "parlor_log_fields", default=_EMPTY
)


def _merged(fields: Mapping[str, str | None]) -> Mapping[str, str]:
    return {**_fields.get(), **{k: v for k, v in fields.items() if v}}


def bind(**fields: str | None) -> None:
    """Add fields to every log line of the current task from now on (an RPC's own task)."""
    if any(fields.values()):
        _fields.set(_merged(fields))


def bind_request(request: object) -> None:
    """Bind a request's ``game_id`` and ``command_id`` fields, if it has them."""
    found = {name: getattr(request, name, None) for name in ("game_id", "command_id")}
    bind(**{k: v for k, v in found.items() if isinstance(v, str) and v})


@contextlib.contextmanager
def bound(**fields: str | None) -> Iterator[None]:
    """Add fields to every log line inside the block (a consumer handling one message)."""
    token = _fields.set(_merged(fields))
    try:
        yield
    finally:
        _fields.reset(token)


def fields() -> Mapping[str, str]:
    """What is bound now, with the current span's ids (for tests and formatters)."""
    found = dict(_fields.get())
    context = trace.get_current_span().get_span_context()
    if context.is_valid:
        found["trace_id"] = format(context.trace_id, "032x")
        found["span_id"] = format(context.span_id, "016x")
    return found


class LogContext(logging.Filter):
    """Puts ``fields()`` on each record (never over an attribute the call gave itself)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in fields().items():
            if key not in record.__dict__:
                setattr(record, key, value)
        return True
