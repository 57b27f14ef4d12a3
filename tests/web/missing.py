"""What the web tests do when a tool they drive is missing: skip on a developer's machine,
fail in CI (``CI`` set), either way naming what to install."""

from __future__ import annotations

import os

import pytest


def stop_if_missing(problems: list[str], what: str) -> None:
    """Nothing when ``problems`` is empty; otherwise fail (CI) or skip, naming them."""
    if not problems:
        return
    message = f"{what} cannot run: " + "; ".join(problems)
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)
