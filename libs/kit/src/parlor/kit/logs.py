"""Structured logs: one JSON object per line on stdout, with the call's context."""

from __future__ import annotations

import contextvars
import json
import logging
import sys
import time
from typing import Any

from parlor.telemetry.logcontext import LogContext

call_context: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "parlor_call_context", default=None
)

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


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
        entry.update(call_context.get() or {})
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def configure(service: str, level: str = "INFO", fmt: str = "json") -> None:
    """Send every log record to stdout, as JSON unless ``fmt`` is "text"."""
    handler = logging.StreamHandler(sys.stdout)
    handler.addFilter(LogContext())  # trace and span ids, game and command ids
    if fmt == "json":
        handler.setFormatter(JsonFormatter(service))
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
