"""Logs with the call's context: one JSON object per line, or a readable line on a terminal.

``PARLOR_LOG_FORMAT`` chooses: ``json`` (what log collectors read), ``text`` (one line a
person reads: time, level, logger, message, then the extras as ``key=value``), or ``auto``
(the default): text when stdout is a terminal, JSON otherwise.
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
import time
import uuid
from typing import IO, Any

from parlor.telemetry.logcontext import LogContext

call_context: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "parlor_call_context", default=None
)

FORMATS = ("auto", "json", "text")

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


def incident(logger: logging.Logger, message: str, error: BaseException) -> str:
    """Log an error nobody foresaw, its traceback under a new incident id; the id, for the
    caller's message (which never carries the traceback)."""
    found = uuid.uuid4().hex[:12]
    logger.error(message, exc_info=error, extra={"incident": found})
    return found


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    """The call's context and the record's own extras, in that order."""
    fields: dict[str, Any] = dict(call_context.get() or {})
    for key, value in vars(record).items():
        if key not in _STANDARD and not key.startswith("_"):
            fields[key] = value
    return fields


class JsonFormatter(logging.Formatter):
    """Formats a record as one JSON line: time, level, logger, message, extras, call context."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "service": self.service,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(_extras(record))
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class TextFormatter(logging.Formatter):
    """One line for a person: ``12:00:01 INFO parlor.kit.server: serving port=50051 ...``."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%H:%M:%S", time.localtime(record.created))
        line = f"{stamp} {record.levelname:<7} {record.name}: {record.getMessage()}"
        extras = " ".join(f"{k}={_short(v)}" for k, v in _extras(record).items())
        if extras:
            line += "  " + extras
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def _short(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    text = str(value)
    return json.dumps(text) if (" " in text or not text) else text


def resolve(fmt: str, stream: IO[str]) -> str:
    """``json`` or ``text``: ``auto`` is text on a terminal, JSON otherwise."""
    if fmt not in FORMATS:
        raise ValueError(f"log format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if fmt != "auto":
        return fmt
    isatty = getattr(stream, "isatty", None)
    return "text" if isatty is not None and isatty() else "json"


def configure(service: str, level: str = "INFO", fmt: str = "auto") -> None:
    """Send every log record to stdout, formatted as ``fmt`` (``auto``, ``json`` or ``text``)."""
    handler = logging.StreamHandler(sys.stdout)
    handler.addFilter(LogContext())  # trace and span ids, game and command ids
    if resolve(fmt, sys.stdout) == "json":
        handler.setFormatter(JsonFormatter(service))
    else:
        handler.setFormatter(TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
