"""`parlor play`'s adapters are found by entry point (``parlor.cli_games``), one per game type."""

from __future__ import annotations

from importlib.metadata import entry_points

from parlor.cli.games import GROUP, adapters
from parlor.cli.games.connect4x4 import Connect4x4
from parlor.gamehost.pipeline.games import games


def test_the_adapters_are_the_registered_entry_points() -> None:
    found = adapters()
    assert set(found) == {ep.name for ep in entry_points(group=GROUP)}
    assert found["connect4x4"] is Connect4x4


def test_every_game_of_the_registry_can_be_played_from_the_command_line() -> None:
    assert set(games()) <= set(adapters())
