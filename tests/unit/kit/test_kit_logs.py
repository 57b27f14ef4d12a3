"""Logs: readable lines on a terminal, JSON for everything else, or as PARLOR_LOG_FORMAT says."""

from __future__ import annotations

import io
import json
import logging
import sys

import pytest

from parlor.kit import logs
from parlor.kit.server import ServerSettings
from parlor.kit.settings import SettingsError, load


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def restore_logging():  # type: ignore[no-untyped-def]
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    yield
    root.handlers[:], level = saved
    root.setLevel(level)


def _logged(stream: io.StringIO, monkeypatch: pytest.MonkeyPatch, fmt: str) -> str:
    monkeypatch.setattr(sys, "stdout", stream)
    logs.configure("platform", "INFO", fmt)
    logging.getLogger("parlor.kit.server").info(
        "serving", extra={"port": 50052, "services": ["a.v1.A", "b.v1.B"]}
    )
    return stream.getvalue()


def test_auto_is_text_on_a_terminal(monkeypatch: pytest.MonkeyPatch, restore_logging) -> None:
    line = _logged(Terminal(), monkeypatch, "auto").strip()
    assert not line.startswith("{")
    assert "INFO" in line
    assert "parlor.kit.server: serving" in line
    assert "port=50052" in line
    assert "services=a.v1.A,b.v1.B" in line


def test_auto_is_json_when_not_a_terminal(monkeypatch: pytest.MonkeyPatch, restore_logging) -> None:
    entry = json.loads(_logged(io.StringIO(), monkeypatch, "auto"))
    assert entry["message"] == "serving"
    assert entry["service"] == "platform"
    assert entry["port"] == 50052


@pytest.mark.parametrize(("stream", "fmt"), [(Terminal, "json"), (io.StringIO, "text")])
def test_a_format_set_is_kept_whatever_stdout_is(
    monkeypatch: pytest.MonkeyPatch, restore_logging, stream: type[io.StringIO], fmt: str
) -> None:
    out = _logged(stream(), monkeypatch, fmt)
    assert out.startswith("{") == (fmt == "json")


def test_the_default_is_auto_and_a_bad_format_is_refused_naming_the_setting() -> None:
    assert load(ServerSettings, {}).log_format == "auto"
    assert load(ServerSettings, {"PARLOR_LOG_FORMAT": "text"}).log_format == "text"
    with pytest.raises(SettingsError, match="PARLOR_LOG_FORMAT"):
        load(ServerSettings, {"PARLOR_LOG_FORMAT": "yaml"})


def test_text_lines_keep_the_exception(monkeypatch: pytest.MonkeyPatch, restore_logging) -> None:
    stream = Terminal()
    monkeypatch.setattr(sys, "stdout", stream)
    logs.configure("platform", "INFO", "auto")
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logging.getLogger("x").exception("failed", extra={"component": "relay"})
    text = stream.getvalue()
    assert "failed  component=relay" in text
    assert "RuntimeError: boom" in text
