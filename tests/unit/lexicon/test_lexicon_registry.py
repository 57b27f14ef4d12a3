"""The registry a service fills from settings: lexicons by id and by name, one default."""

from __future__ import annotations

from pathlib import Path

import pytest

from parlor.core.errors import InvalidArgument, NotFound
from parlor.lexicon import LEXICON_NAME_TAKEN, Lexicon, Registry, enable1, load_registry

SMALL = Lexicon("small", ["cat", "dog"])
OTHER = Lexicon("other", ["cat", "cow"])


def test_registry_finds_a_lexicon_by_id_and_by_name() -> None:
    registry = Registry([SMALL, OTHER])
    assert registry.get(SMALL.id) is SMALL
    assert registry.get("small") is SMALL
    assert registry.get("other") is OTHER
    assert SMALL.id in registry
    assert "other" in registry
    assert list(registry) == [SMALL, OTHER]
    assert len(registry) == 2


def test_first_lexicon_added_is_the_default_unless_named() -> None:
    assert Registry([SMALL, OTHER]).default is SMALL
    assert Registry([SMALL, OTHER], default="other").get() is OTHER
    assert Registry([SMALL, OTHER], default=OTHER.id).get("") is OTHER


def test_a_name_never_changes_meaning() -> None:
    registry = Registry([SMALL])
    registry.add(Lexicon("small", ["cat", "dog"]))  # same content, same id: a no-op
    assert len(registry) == 1
    with pytest.raises(InvalidArgument) as caught:
        registry.add(Lexicon("small", ["cat", "dogs"]))
    assert caught.value.reason == LEXICON_NAME_TAKEN


def test_enable_registers_under_its_name() -> None:
    registry = Registry([enable1()])
    assert registry.get("enable1") is enable1()
    assert registry.get(enable1().id).check("quixotic")


def test_service_registry_has_enable_and_each_configured_file(tmp_path: Path) -> None:
    collins = tmp_path / "collins.txt"
    collins.write_text("qi\nza\ncat\n")
    registry = load_registry({"collins": collins}, warm=True)
    assert registry.default is enable1()
    assert registry.get("collins").check("QI")
    assert not registry.get("enable1").check("qi")
    assert [lexicon.name for lexicon in registry] == ["enable1", "collins"]
    assert load_registry({"collins": collins}, default="collins").default.name == "collins"


def test_service_registry_fails_fast_on_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_registry({"gone": tmp_path / "gone.txt"})


def test_service_registry_refuses_an_unknown_default() -> None:
    with pytest.raises(NotFound):
        load_registry(default="collins")
