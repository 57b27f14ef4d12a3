"""What a browser received, searched for hidden information: racks, hands, grids, draws, the bag.

A document is the JSON of an answer or of one Server-Sent Event's data. A secret field that
is present and not empty is a leak for anyone who may not see it (the services leave them
empty in a copy for such a viewer; the bridge adds nothing).
"""

from __future__ import annotations

import json
from typing import Any

# Upwords: rack, racks, drawn, returned, bag; Take Four: hand, grid, secret (every event's
# hidden part), bag.
SECRET_KEYS = frozenset({"rack", "racks", "drawn", "returned", "bag", "hand", "grid", "secret"})


def received_json(text: str) -> list[Any]:
    """Every JSON document in what a page received: answers, and each event's data."""
    found = []
    for line in text.splitlines():
        line = line.removeprefix("data: ").strip()
        if line.startswith("{"):
            found.append(json.loads(line))
    return found


def secrets_in(value: Any, path: str = "") -> list[str]:
    """Paths of non-empty secret fields anywhere in a document."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in SECRET_KEYS and item:
                found.append(f"{path}.{key}")
            found += secrets_in(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += secrets_in(item, f"{path}[{i}]")
    return found
