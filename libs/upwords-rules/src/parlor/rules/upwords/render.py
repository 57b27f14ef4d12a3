"""A plain-text picture of the game for one viewer: letters with stack heights.

Each square shows its top letter and its height (``E2``: an E on a stack of
two; ``Qu1``), ``.`` when empty, ``+`` for an empty centre square.
"""

from __future__ import annotations

from parlor.rules.upwords.board import CENTRE, SIZE
from parlor.rules.upwords.notation import COLUMNS
from parlor.rules.upwords.state import Phase, UpwordsState
from parlor.rules.upwords.view import view


def render(state: UpwordsState, viewer: int | None) -> str:
    seen = view(state, viewer)
    lines = ["    " + " ".join(f"{c:^3}" for c in COLUMNS)]
    for r in range(SIZE):
        cells = []
        for c in range(SIZE):
            top = seen.board.top(r, c)
            if top is None:
                cells.append(" + " if (r, c) in CENTRE else " . ")
            else:
                cells.append(f"{top:>2}{seen.board.height(r, c)}")
        lines.append(f"{r + 1:>3} " + " ".join(cells))
    lines.append("")
    for seat, name in enumerate(seen.seats):
        marker = ">" if seen.phase is Phase.PLAYING and seat == seen.to_move else " "
        if seen.racks is not None:
            rack = " ".join(seen.racks[seat])
        elif seat == viewer and seen.rack is not None:
            rack = " ".join(seen.rack)
        else:
            rack = f"{seen.rack_sizes[seat]} tiles"
        lines.append(f"{marker} {seat} {name}: {seen.scores[seat]} points, rack {rack}")
    lines.append(f"bag: {seen.bag_count} tiles")
    if seen.pending is not None:
        lines.append(f"open to challenge: {', '.join(seen.pending.words)}")
    if seen.phase is Phase.ENDED:
        winners = ", ".join(seen.seats[s] for s in seen.winners)
        lines.append(f"game over ({seen.end_reason}); won by {winners}")
    return "\n".join(lines)
