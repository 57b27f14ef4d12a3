"""The CLI's local commands and drawing, without a server: tokens, `parlor up`, the board."""

from __future__ import annotations

import io
import os

import pytest
from rich.console import Console
from typer.testing import CliRunner

from parlor.cli import main as cli_main
from parlor.cli.games.connect4x4 import Connect4x4
from parlor.gamehost.seating import Seat, Table
from parlor.kit.auth import DEV_SECRET, AuthSettings, verify_token
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.codec import game_pb

runner = CliRunner()


def test_token_is_signed_with_the_configured_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLOR_JWT_SECRET", "a-secret-for-this-test-of-32-bytes!")
    # No platform at this target: the token is minted locally.
    result = runner.invoke(cli_main.app, ["token", "--name", "Zoe", "--target", "127.0.0.1:1"])
    assert result.exit_code == 0
    identity = verify_token(
        AuthSettings(secret="a-secret-for-this-test-of-32-bytes!"), result.stdout.strip()
    )
    assert identity.player_id.startswith("guest-")
    assert identity.name == "Zoe"
    assert identity.roles == ("guest",)


def test_token_falls_back_to_the_development_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PARLOR_JWT_SECRET", raising=False)
    result = runner.invoke(cli_main.app, ["token", "--player-id", "ada"])
    identity = verify_token(AuthSettings(secret=DEV_SECRET), result.stdout.strip())
    assert identity.player_id == "ada"


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
