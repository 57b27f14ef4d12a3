"""Fixtures of the deployment tests: the overlays, rendered once per session."""

from __future__ import annotations

from typing import Any

import pytest
from deploy_facts import OVERLAYS, rendered


@pytest.fixture(params=sorted(OVERLAYS), scope="session")
def overlay(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def objects(overlay: str) -> tuple[dict[str, Any], ...]:
    return rendered(overlay)
