"""Who am I: `parlor token` says the player id and where the token was made; `parlor whoami`."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from parlor.cli import main as cli_main
from parlor.cli import session as sessions
from parlor.kit.auth import (
    AuthSettings,
    data_dir_key,
    generate_private_key,
    issue_token,
    verify_token,
)

runner = CliRunner()
KEY = AuthSettings(private_key=generate_private_key())


def test_a_local_token_prints_only_the_token_and_says_on_stderr_who_and_that_it_is_local(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("PARLOR_JWT_PRIVATE_KEY", raising=False)
    monkeypatch.setenv("PARLOR_DATA_DIR", str(tmp_path))
    key = data_dir_key(tmp_path, create=True)
    result = runner.invoke(cli_main.app, ["token", "--name", "Ada", "--target", "127.0.0.1:1"])
    assert result.exit_code == 0
    token = result.stdout.strip()
    assert "\n" not in token  # $(parlor token) is the token alone
    identity = verify_token(AuthSettings(private_key=str(key)), token)
    assert f"player id: {identity.player_id}" in result.stderr
    assert "made locally" in result.stderr
    assert "no platform answered at 127.0.0.1:1" in result.stderr
    assert f"the key `make run` keeps in {key}" in result.stderr


def test_a_token_for_a_chosen_player_id_is_local_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PARLOR_JWT_PRIVATE_KEY", KEY.private_key)
    result = runner.invoke(cli_main.app, ["token", "--player-id", "ada"])
    assert result.exit_code == 0
    assert "player id: ada" in result.stderr
    assert "--player-id given" in result.stderr
    assert "signed with PARLOR_JWT_PRIVATE_KEY" in result.stderr
    assert verify_token(KEY, result.stdout.strip()).player_id == "ada"


def test_a_token_the_platform_issued_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    issued = issue_token(KEY, "guest-abc", "Ada", ("guest",))
    monkeypatch.setattr(sessions, "remote_guest_token", lambda target, name: issued)
    result = runner.invoke(cli_main.app, ["token", "--target", "example:50051"])
    assert result.exit_code == 0
    assert result.stdout.strip() == issued
    assert "player id: guest-abc" in result.stderr
    assert "issued by the platform at example:50051" in result.stderr
    assert "locally" not in result.stderr


def test_whoami_prints_the_player_id_name_and_roles(monkeypatch: pytest.MonkeyPatch) -> None:
    token = issue_token(KEY, "guest-1234", "Ada", ("guest",))
    monkeypatch.setenv("PARLOR_TOKEN", token)
    result = runner.invoke(cli_main.app, ["whoami"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "player id: guest-1234"
    assert lines[1].split() == ["name:", "Ada"]
    assert lines[2].split() == ["roles:", "guest"]
    assert lines[3].startswith("expires:")
    assert "(expired)" not in lines[3]


def test_whoami_reads_the_token_flag_first_and_says_when_it_expired(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PARLOR_TOKEN", issue_token(KEY, "other"))
    old = issue_token(KEY, "ada", ttl_seconds=60, now=1_000_000)
    result = runner.invoke(cli_main.app, ["whoami", "--token", old])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "player id: ada"
    assert "(expired)" in result.stdout


@pytest.mark.parametrize("token", [None, "not-a-token"])
def test_whoami_without_a_usable_token_fails_saying_why(
    monkeypatch: pytest.MonkeyPatch, token: str | None
) -> None:
    monkeypatch.delenv("PARLOR_TOKEN", raising=False)
    result = runner.invoke(cli_main.app, ["whoami", *(["--token", token] if token else [])])
    assert result.exit_code == 2
    assert ("no token" if token is None else "not a token") in result.stderr
