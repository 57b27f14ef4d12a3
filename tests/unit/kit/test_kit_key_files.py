"""``parlor-keys``: the identity key, and one key per game service that calls another.

Which game services call another (the word games call the dictionary) is said once, in each
game's declaration (``GameType.calls``); ``parlor-keys`` and the deployment files read it
there, so a new word game needs no list edited elsewhere.
"""

from __future__ import annotations

import dataclasses
import json
import stat
from pathlib import Path

import pytest

from parlor.gamehost.pipeline.games import games
from parlor.gamehost.wiring.wordgame import word_game_component
from parlor.gamehost.words.words import DictionarySettings
from parlor.kit.keys import calling_services, main, write_keys


def test_the_calling_services_are_the_games_whose_declaration_names_a_call() -> None:
    declared = tuple(sorted(name for name, game in games().items() if game.calls))
    assert calling_services() == declared
    assert {"upwords", "takefour"} <= set(declared)
    assert "connect4x4" not in declared


def test_the_keys_are_written_once_private_and_all_in_the_jwks(tmp_path: Path) -> None:
    assert main([str(tmp_path)]) == 0
    names = {"identity", *calling_services()}
    assert {p.stem for p in tmp_path.glob("*.pem")} == names
    for path in tmp_path.glob("*.pem"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    kids = {key["kid"] for key in json.loads((tmp_path / "jwks.json").read_text())["keys"]}
    assert kids == names
    before = {p.name: p.read_text() for p in tmp_path.glob("*.pem")}
    write_keys(tmp_path)
    assert {p.name: p.read_text() for p in tmp_path.glob("*.pem")} == before


async def test_a_word_game_that_does_not_declare_its_call_is_refused_at_start() -> None:
    undeclared = dataclasses.replace(games()["upwords"], calls=())
    with pytest.raises(ValueError, match="calls=\\('dictionary',\\)"):
        async with word_game_component(undeclared, DictionarySettings(), lambda *_: None):  # type: ignore[arg-type,return-value]
            pass


def test_each_service_key_may_sign_only_for_the_services_its_game_calls(tmp_path: Path) -> None:
    """The JWKS names, per game key, the services its tokens may be for (``aud``: the
    declaration's ``calls``); a JWKS written before that is written again, keys kept."""
    (tmp_path / "jwks.json").write_text('{"keys": []}')  # an older one, say
    write_keys(tmp_path)
    keys = json.loads((tmp_path / "jwks.json").read_text())["keys"]
    audiences = {key["kid"]: key.get("aud") for key in keys}
    assert audiences.pop("identity") is None  # the identity key signs for any service
    assert audiences == {name: sorted(game.calls) for name, game in games().items() if game.calls}
    assert audiences["upwords"] == ["dictionary"]
