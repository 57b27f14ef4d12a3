"""Take Four notation: a finished game as text, one line per event, every secret shown.

Only finished games are exported (the text reveals hands, grids and bags). The
format is documented in the service README; a tile is written as its id and face
(``17E``, ``98?``), a cell as ``x,y``. The platform's part of the record (who sat
where, how the game finished) is given as plain values: the rules know no seats.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from parlor.rules.takefour import events as ev
from parlor.rules.takefour.tiles import STANDARD_TILES, TileSet


def _tile(tiles: TileSet, tile: int) -> str:
    return f"{tile}{tiles.face(tile)}"


def _list(values: Iterable[int]) -> str:
    return ",".join(str(v) for v in values) or "-"


def _tiles(tiles: TileSet, ids: Iterable[int]) -> str:
    return ",".join(_tile(tiles, t) for t in ids) or "-"


def export(
    game_id: str,
    lexicon_id: str,
    events: Sequence[ev.TakeFourEvent],
    seat_lines: Sequence[str] = (),
    finished: tuple[str, Sequence[int]] | None = None,
) -> str:
    """The game's notation: ``events`` are the engine's, in order; ``seat_lines`` name the
    players (the platform's seat tags, written after the game's id); ``finished`` is how
    the game finished (reason, each seat's rank)."""
    lines = ['[Game "takefour"]', f'[GameId "{game_id}"]']
    lines += seat_lines
    tiles = STANDARD_TILES
    for event in events:
        match event:
            case ev.GameCreated(config, _):
                tiles = config.tiles
                spec = " ".join(f"{s.letter}{s.count}:{s.value}" for s in tiles.letters)
                lines += [
                    f'[Lexicon "{config.lexicon or lexicon_id}"]',
                    f'[Checking "{config.checking}"]',
                    f'[Target "{config.target}"]',
                    f'[MaxRounds "{config.max_rounds or "-"}"]',
                    f'[DealSize "{config.deal_size}"]',
                    f'[Rules "{config.rules}"]',
                    f'[Tiles "{spec} ?{tiles.jokers}:{tiles.joker_value}"]',
                ]
            case ev.RoundStarted(number, bag):
                lines.append(f"R{number} bag {_list(bag)}")
            case ev.TilesDealt(number, kind, hands, unused, bag_left):
                dealt = " ".join(f"s{i}:{_tiles(tiles, h)}" for i, h in enumerate(hands))
                lines.append(
                    f"D{number} {kind} {dealt} unused:{_tiles(tiles, unused)} left:{bag_left}"
                )
            case ev.TilePlaced(seat, tile, x, y, letter):
                shown = f"={letter}" if tiles.is_joker(tile) else ""
                lines.append(f"s{seat} place {_tile(tiles, tile)}{shown} @{x},{y}")
            case ev.TileMoved(seat, fx, fy, tx, ty, letter):
                lines.append(f"s{seat} move {fx},{fy} > {tx},{ty} {letter}")
            case ev.TileTakenBack(seat, x, y, tile):
                lines.append(f"s{seat} back {x},{y} {_tile(tiles, tile)}")
            case ev.JokerSwapped(seat, x, y, tile, joker):
                swapped = f"{_tile(tiles, tile)} joker {_tile(tiles, joker)}"
                lines.append(f"s{seat} swap {x},{y} {swapped}")
            case ev.TakeFourCalled(seat):
                lines.append(f"s{seat} takefour")
            case ev.DealAgreed(seat):
                lines.append(f"s{seat} agree")
            case ev.AgreementWithdrawn(seat):
                lines.append(f"s{seat} withdraw")
            case ev.SeatIdle(seat):
                lines.append(f"s{seat} idle")
            case ev.SeatForfeited(seat, reason):
                lines.append(f"s{seat} forfeit {reason}")
            case ev.DoneCalled(seat, accepted, in_hand):
                words = "" if accepted is None else f" words {','.join(accepted) or '-'}"
                held = f" in_hand {in_hand}" if in_hand else ""
                lines.append(f"s{seat} done{held}{words}")
            case ev.RoundScored(number, done_seat, valid, scores, totals, removed):
                lost = " ".join(
                    f"s{i}:" + (";".join(f"{x},{y}" for x, y in cells) or "-")
                    for i, cells in enumerate(removed)
                )
                lines.append(
                    f"S{number} done s{done_seat} {'valid' if valid else 'invalid'}"
                    f" scores {_list(scores)} totals {_list(totals)} removed {lost}"
                )
            case ev.GameEnded(totals, winners):
                lines.append(f"end totals {_list(totals)} winners {_list(winners)}")
    if finished is not None:
        reason, ranks = finished
        lines.append(f"finished {reason} ranks {_list(ranks)}")
    return "\n".join(lines) + "\n"
