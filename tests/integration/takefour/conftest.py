"""Take Four runs beside the dictionary it checks words with: two in-process servers."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any

import pytest


@pytest.fixture
def bot_pause_seconds() -> str:
    """How long the bots pause between steps (a test module that must see a game before a
    bot plays it out overrides this)."""
    return "0"


@pytest.fixture
async def takefour(
    start_platform: Any, monkeypatch: pytest.MonkeyPatch, bot_pause_seconds: str
) -> AsyncIterator[Any]:
    """The Take Four service, its words checked by a dictionary server started first."""
    async with start_platform("dictionary") as dictionary:
        monkeypatch.setenv("PARLOR_DICTIONARY_TARGET", dictionary.target)
        monkeypatch.setenv("PARLOR_TAKEFOUR_BOT_PAUSE_SECONDS", bot_pause_seconds)
        monkeypatch.setenv("PARLOR_TAKEFOUR_BOT_HUMAN_PACE", "false")  # tests need no waiting
        monkeypatch.setenv("PARLOR_TAKEFOUR_BOT_IDLE_SECONDS", "0.2")
        # Bots leave a table of bots alone after this (60 by default): a bots-only game that
        # takes longer on a busy machine would end early, with fewer rounds than it was made
        # for. They stay, unless a test about leaving (a ``bot_pause_seconds`` of its own)
        # has set it.
        if "PARLOR_TAKEFOUR_BOT_ALONE_SECONDS" not in os.environ:
            monkeypatch.setenv("PARLOR_TAKEFOUR_BOT_ALONE_SECONDS", "3600")
        async with start_platform("takefour") as platform:
            yield platform
