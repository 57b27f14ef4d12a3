"""Where `parlor login` keeps an account's tokens: the config directory, readable by the user
alone, one entry per target."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from parlor.cli import login


def test_the_config_directory_follows_parlor_config_dir_then_xdg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PARLOR_CONFIG_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert login.config_dir() == tmp_path / "xdg" / "parlor"
    monkeypatch.setenv("PARLOR_CONFIG_DIR", str(tmp_path / "own"))
    assert login.credentials_file() == tmp_path / "own" / "credentials.json"


def test_tokens_are_kept_0600_in_a_0700_folder_whatever_the_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLOR_CONFIG_DIR", str(tmp_path / "parlor"))
    kept = login.Stored("access", "family.secret", 1, "acct-1", "test")
    old = os.umask(0)
    try:
        login.store("a:50051", kept)
        login.store("b:50051", login.Stored("x", "y", 2, "acct-2", "test"))
    finally:
        os.umask(old)
    assert stat.S_IMODE(login.credentials_file().stat().st_mode) == 0o600
    assert stat.S_IMODE(login.config_dir().stat().st_mode) == 0o700
    assert login.stored("a:50051") == kept
    assert login.forget("a:50051")
    assert login.stored("a:50051") is None
    assert not login.forget("a:50051")
    assert login.stored("b:50051") is not None  # the other target's session is kept
    assert [p.name for p in login.config_dir().iterdir()] == ["credentials.json"]


def test_a_broken_credentials_file_is_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLOR_CONFIG_DIR", str(tmp_path))
    login.credentials_file().write_text("{not json")
    with pytest.raises(login.LoginError, match="cannot read"):
        login.stored("a:50051")
