"""The CLI's local commands and drawing, without a server: tokens, `parlor up`, the board."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from parlor.cli import main as cli_main
from parlor.cli.games.connect4x4 import Connect4x4
from parlor.gamehost.table.seating import Table
from parlor.gametypes.seats import Seat
from parlor.kit.auth import AuthSettings, data_dir_key, generate_private_key, verify_token
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.game import game_pb

runner = CliRunner()


def test_token_is_signed_with_the_configured_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    key = generate_private_key()
    monkeypatch.setenv("PARLOR_JWT_PRIVATE_KEY", key)
    # No platform at this target: the token is minted locally.
    result = runner.invoke(cli_main.app, ["token", "--name", "Zoe", "--target", "127.0.0.1:1"])
    assert result.exit_code == 0
    identity = verify_token(AuthSettings(private_key=key), result.stdout.strip())
    assert identity.player_id.startswith("guest-")
    assert identity.name == "Zoe"
    assert identity.roles == ("guest",)


def test_token_falls_back_to_the_development_secret(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The development "secret" is now the key `make run` keeps in its data directory.
    monkeypatch.delenv("PARLOR_JWT_PRIVATE_KEY", raising=False)
    monkeypatch.setenv("PARLOR_DATA_DIR", str(tmp_path))
    key = data_dir_key(tmp_path, create=True)
    result = runner.invoke(cli_main.app, ["token", "--player-id", "ada"])
    identity = verify_token(AuthSettings(private_key=str(key)), result.stdout.strip())
    assert identity.player_id == "ada"


def test_token_without_any_key_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PARLOR_JWT_PRIVATE_KEY", raising=False)
    monkeypatch.setenv("PARLOR_DATA_DIR", str(tmp_path / "none"))
    result = runner.invoke(cli_main.app, ["token", "--player-id", "ada"])
    assert result.exit_code != 0
    assert "PARLOR_JWT_PRIVATE_KEY" in result.stderr
    assert result.stdout == ""


def test_up_runs_the_platform_with_its_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    called: list[tuple[str, list[str]]] = []

    def execv(program: str, argv: list[str]) -> None:
        called.append((program, argv))
        raise SystemExit(0)

    monkeypatch.setattr(os, "execv", execv)
    result = runner.invoke(cli_main.app, ["up", "--only", "connect4x4"])
    assert result.exit_code == 0
    ((program, argv),) = called
    assert program.endswith("parlor-platform")
    assert argv[1:] == ["--only", "connect4x4"]


def test_an_unknown_game_type_is_refused() -> None:
    result = runner.invoke(cli_main.app, ["play", "chess", "--target", "127.0.0.1:1"])
    assert result.exit_code == 2
    assert "unknown game type 'chess'" in result.stderr


def test_verify_needs_a_database(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PARLOR_DATABASE_URL", raising=False)
    result = runner.invoke(cli_main.app, ["verify"])
    assert result.exit_code == 2
    assert "PARLOR_DATABASE_URL" in result.stderr


def drawn(game: object) -> str:
    out = io.StringIO()
    Console(file=out, width=100).print(Connect4x4.__new__(Connect4x4).draw(game, "ada"))
    return out.getvalue()


def test_the_board_shows_both_sides_whose_turn_and_the_legal_moves() -> None:
    state, _ = c4.play("df db")
    table = Table((Seat("ada", "Ada"), Seat("bot:greedy", "Bot")), state)
    text = drawn(game_pb("g", 4, table, 0))
    rows = text.splitlines()
    assert "FRONT" in rows[0]
    assert "BACK" in rows[0]
    assert rows[6] == " 0 |. . . R . . .|    |. . . Y . . .|"
    assert "→ R Ada (you): 16 checkers, 2 blockers" in text
    assert "move 3: R Ada to play" in text
    assert "legal: af ab bf" in text


def test_a_won_board_names_the_winner() -> None:
    state, _ = c4.play("af ab ab af af ab ab")
    table = Table((Seat("ada", "Ada"), Seat("bob", "Bob")), state)
    text = drawn(game_pb("g", 9, table, None))
    assert "R Ada wins (FOUR_IN_A_LINE)" in text
    assert "legal:" not in text
