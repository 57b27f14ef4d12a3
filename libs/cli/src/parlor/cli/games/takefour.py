"""Take Four in the terminal: your grid and hand, everyone's progress, commands in notation.

Play is simultaneous: there are no turns, so while a round is being played it is always
the caller's move (``to_move``); bots play on the server on their own (its bot runner),
and each redraw shows how far everyone got. Others' hands and grids are drawn only when
the service shows them (``SeatView.visible``: after the end, or in a finished game's replay).

Commands follow the service's notation (its README, ``notation.py``): a cell is ``x,y``
(x to the right, y down, negatives allowed; ``@x,y`` as the export writes it is read too),
a tile is a letter of your hand (``A``), a joker with the letter it shows (``?=E``), or a
tile id as the export writes it (``17``, ``17E``, ``98?=E``)::

    place A 0,0     place ?=E 1,0     move 0,0 2,1 [=S]     back 2,1 (or: take 2,1)
    swap 1,0        takefour          agree      withdraw    done      look

``takefour`` needs an empty hand. ``done`` needs an empty bag (fewer tiles left than
players count as empty: they are never dealt); in honor mode it is not checked, so it
stands even while you hold tiles, and those count double with the removed ones. The
rules in full: docs/rules/takefour.md.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from parlor.cli.games.calls import ServiceCalls
from parlor.gamehost.wire.export import seat_tags
from parlor.gametypes.seats import Seat
from parlor.takefour.v1 import takefour_pb2 as pb

JOKER = "?"
MAX_DRAWN = 40
"""A grid wider or taller than this (cells) is listed instead of drawn."""
PHASES = {
    pb.PHASE_BETWEEN_ROUNDS: "between rounds",
    pb.PHASE_PLAYING: "playing",
    pb.PHASE_OVER: "over",
}
CHECKING = {pb.CHECKING_HONOR: "honor", pb.CHECKING_AUTO: "auto"}
DEALS = {
    pb.DEAL_KIND_START: "start",
    pb.DEAL_KIND_TAKE_FOUR: "take_four",
    pb.DEAL_KIND_STALEMATE: "stalemate",
    pb.DEAL_KIND_LAST: "last",
}
CHANGES = {
    pb.GRID_CHANGE_PLACED: "placed a tile",
    pb.GRID_CHANGE_MOVED: "moved a tile",
    pb.GRID_CHANGE_TAKEN_BACK: "took a tile back",
    pb.GRID_CHANGE_JOKER_SWAPPED: "swapped a joker",
}
LEAVING = (
    "'resign' leaves the game for good (Take Four's Leave): your seat forfeits, its tiles"
    " score as unplaced, and the others play on; 'quit' only closes the terminal"
)

_CELL = re.compile(r"^@?(-?\d+),(-?\d+)$")
_TILE = re.compile(r"^(?P<id>\d+)?(?P<face>[A-Z?])?(?:=(?P<letter>[A-Z]))?$")


# -- commands ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    x: int
    y: int


@dataclass(frozen=True)
class TileSpec:
    """A tile as typed: an id, a face (a letter or ``?``), and a joker's chosen letter."""

    id: int | None
    face: str | None
    letter: str | None


@dataclass(frozen=True)
class Command:
    """One typed command: its verb and its parts, not yet resolved against the hand."""

    verb: str
    tile: TileSpec | None = None
    cells: tuple[Cell, ...] = ()
    letter: str | None = None


VERBS = ("place", "move", "back", "swap", "takefour", "agree", "withdraw", "done", "look")


def parse_cell(text: str) -> Cell:
    match = _CELL.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a cell: write x,y (e.g. 0,0 or -1,2)")
    return Cell(int(match.group(1)), int(match.group(2)))


def parse_tile(text: str) -> TileSpec:
    match = _TILE.match(text.upper())
    if match is None or not (match["id"] or match["face"]):
        raise ValueError(f"{text!r} is not a tile: write a letter (A), ?=E for a joker, or an id")
    face, letter = match["face"], match["letter"]
    if letter is not None and face != JOKER:
        raise ValueError(f"only a joker takes a letter: write ?={letter}")
    return TileSpec(int(match["id"]) if match["id"] else None, face, letter)


def parse_letter(text: str) -> str:
    letter = text.removeprefix("=").upper()
    if not re.fullmatch(r"[A-Z]", letter):
        raise ValueError(f"{text!r} is not a letter A-Z")
    return letter


def parse_command(typed: str) -> Command:
    """``place A 0,0``, ``move 0,0 > 1,0 =E``, ``back 0,0`` ...: the parts, checked for form."""
    words = typed.replace(">", " ").split()
    if not words:
        raise ValueError("type a command")
    verb, args = words[0].lower(), words[1:]
    verb = {"take": "back", "tf": "takefour", "take-four": "takefour"}.get(verb, verb)
    if verb not in VERBS:
        raise ValueError(f"unknown command {words[0]!r}; commands: {', '.join(VERBS)}")
    if verb == "place":
        if len(args) != 2:
            raise ValueError("place <tile> <x,y>: e.g. place A 0,0 or place ?=E 1,0")
        return Command(verb, tile=parse_tile(args[0]), cells=(parse_cell(args[1]),))
    if verb == "move":
        if len(args) not in (2, 3):
            raise ValueError("move <x,y> <x,y> [=letter]: e.g. move 0,0 2,1")
        letter = parse_letter(args[2]) if len(args) == 3 else None
        return Command(verb, cells=(parse_cell(args[0]), parse_cell(args[1])), letter=letter)
    if verb in ("back", "swap"):
        if not 1 <= len(args) <= (2 if verb == "swap" else 1):
            raise ValueError(f"{verb} <x,y>" + (" [tile]" if verb == "swap" else ""))
        tile = parse_tile(args[1]) if len(args) == 2 else None
        return Command(verb, tile=tile, cells=(parse_cell(args[0]),))
    if args:
        raise ValueError(f"{verb} takes nothing after it")
    return Command(verb)


def faces(tiles: pb.TileSet) -> list[str]:
    """Each tile id's face: letters in the order given, each ``count`` times, then jokers."""
    out = [spec.letter for spec in tiles.letters for _ in range(spec.count)]
    return out + [JOKER] * tiles.jokers


def my_seat(game: pb.Game) -> pb.SeatView:
    if not game.HasField("viewer_seat"):
        raise ValueError("you have no seat in this game")
    return game.seats[game.viewer_seat]


def hand_tile(game: pb.Game, spec: TileSpec) -> int:
    """The id of the typed tile in the caller's hand (the first of that face)."""
    hand = list(my_seat(game).hand)
    if spec.id is not None:
        found = [t for t in hand if t.id == spec.id]
        if not found:
            raise ValueError(f"tile {spec.id} is not in your hand")
        if spec.face is not None and found[0].face != spec.face:
            raise ValueError(f"tile {spec.id} is {found[0].face}, not {spec.face}")
        return spec.id
    for tile in hand:
        if tile.face == spec.face:
            return tile.id
    shown = "a joker" if spec.face == JOKER else spec.face
    raise ValueError(f"no {shown} in your hand ({' '.join(t.face for t in hand) or 'empty'})")


# -- the adapter -------------------------------------------------------------------------------


class TakeFour(ServiceCalls):
    """The Take Four adapter (see ``parlor.cli.games.GameAdapter``)."""

    name = "takefour"
    move_help = (
        "place A 0,0 | place ?=E 1,0 | move 0,0 2,1 | back 0,0 | swap 1,0 | "
        "takefour (hand empty) | agree | withdraw | "
        "done (bag empty; honor mode: even holding tiles, which count double) | look"
    )
    default_opponent = "bot:medium"

    live = True  # simultaneous play: others' moves are drawn as they come

    # -- calls -----------------------------------------------------------------------------

    async def play(self, game: pb.Game, move: str, command_id: str) -> tuple[pb.Game, list[Any]]:
        """Send one typed command; the game as it is now and the events it appended.

        The command names the round of ``game``, the one the player saw: if the game moved
        on to another round meanwhile, the service refuses it (``ROUND_CHANGED``).
        """
        command = parse_command(move)
        game_id = game.game_id
        if command.verb == "look":
            return await self.get(game_id), []
        ids: dict[str, Any] = {"game_id": game_id, "command_id": command_id, "round": game.round}
        send = self.api.command
        response: Any
        match command.verb:
            case "place":
                assert command.tile is not None
                (cell,) = command.cells
                tile = hand_tile(await self.get(game_id), command.tile)
                letter = command.tile.letter or ""
                response = await send(
                    "PlaceTile", **ids, tile=tile, x=cell.x, y=cell.y, letter=letter
                )
            case "move":
                source, target = command.cells
                response = await send(
                    "MoveTile",
                    **ids,
                    from_=pb.Cell(x=source.x, y=source.y),
                    to=pb.Cell(x=target.x, y=target.y),
                    letter=command.letter or "",
                )
            case "back":
                (cell,) = command.cells
                response = await send("TakeBackTile", **ids, cell=pb.Cell(x=cell.x, y=cell.y))
            case "swap":
                (cell,) = command.cells
                now = await self.get(game_id)
                tile = hand_tile(now, command.tile or self._joker_letter(now, cell))
                response = await send(
                    "SwapJoker", **ids, tile=tile, cell=pb.Cell(x=cell.x, y=cell.y)
                )
            case "takefour":
                response = await send("CallTakeFour", **ids)
            case "agree":
                response = await send("AgreeToDeal", **ids)
            case "withdraw":
                response = await send("WithdrawAgreement", **ids)
            case _:
                response = await send("CallDone", **ids)
        return response.game, list(response.events)

    @staticmethod
    def _joker_letter(game: pb.Game, cell: Cell) -> TileSpec:
        """The hand tile a swap needs: one showing the letter of the joker on ``cell``."""
        for placed in my_seat(game).grid:
            if (placed.x, placed.y) == (cell.x, cell.y):
                if not placed.joker:
                    raise ValueError(f"the tile on {cell.x},{cell.y} is not a joker")
                return TileSpec(None, placed.letter, None)
        raise ValueError(f"there is no tile on {cell.x},{cell.y}")

    async def resign(self, game_id: str, command_id: str) -> pb.Game:
        """Take Four has no resignation in its rulebook: leaving (``Leave``) forfeits the seat."""
        response = await self.api.command("Leave", game_id=game_id, command_id=command_id)
        game: pb.Game = response.game
        return game

    # -- reading a game --------------------------------------------------------------------

    def is_over(self, game: pb.Game) -> bool:
        return game.phase == pb.PHASE_OVER

    def to_move(self, game: pb.Game) -> str | None:
        """Simultaneous play: the caller (if seated) may act whenever a round is being played."""
        if game.phase != pb.PHASE_PLAYING or not game.HasField("viewer_seat"):
            return None
        return str(game.seats[game.viewer_seat].seat.player_id)

    def outcome(self, game: pb.Game) -> str:
        if game.phase != pb.PHASE_OVER:
            return "in progress"
        if game.aborted:
            return "aborted before it started: no result"
        names = _names(game)
        totals = ", ".join(f"{names[s.seat.index]} {s.total}" for s in game.seats)
        winners = " and ".join(names[w] for w in game.winners)
        verb = "wins" if len(game.winners) == 1 else "share the win"
        racing = [s.seat.index for s in game.seats if not s.forfeited]
        # forfeits that leave one seat racing end the game at once: that seat wins, whatever
        # the totals (docs/rules/takefour.md, "Forfeit")
        alone = len(racing) == 1 and list(game.winners) == racing
        why = "everyone else forfeited" if alone else "lowest total"
        return f"{winners} {verb} ({why}); totals: {totals}"

    def draw(self, game: pb.Game, me: str | None) -> RenderableType:
        """The round, bag and scores; everyone's progress; your grid and hand (others' if shown)."""
        if not game.seats:
            return Text("seats taken; the game is being set up", style="dim")
        names = _names(game)
        config = game.config
        header = Text()
        header.append(f"Take Four, round {game.round}: {PHASES.get(game.phase, '?')}", "bold")
        header.append(f"   bag {game.bag_count}")
        if game.unused_count:
            header.append(f" (unused {game.unused_count})")
        header.append(
            f"   checking {CHECKING.get(config.checking, '?')}, target {config.target}"
            + (f", {config.max_rounds} rounds" if config.max_rounds else "")
        )
        progress = Table(box=None, pad_edge=False, show_edge=False)
        for column in ("seat", "player", "hand", "grid", "calls", "stalemate", "total"):
            progress.add_column(column, justify="left" if column == "player" else "right")
        mine = game.viewer_seat if game.HasField("viewer_seat") else None
        for view in game.seats:
            i = view.seat.index
            you = " (you)" if i == mine or (me is not None and view.seat.player_id == me) else ""
            winner = " *" if game.phase == pb.PHASE_OVER and i in game.winners else ""
            progress.add_row(
                str(i),
                f"{names[i]}{you}{winner}",
                str(view.in_hand),
                str(view.on_grid),
                str(view.calls),
                "agrees" if view.agrees_to_deal else "-",
                str(view.total),
            )
        parts: list[RenderableType] = [header, progress]
        if game.results:
            scores = Text("rounds: ", style="dim")
            for result in game.results:
                shown = ", ".join(f"{names[s]} {v}" for s, v in enumerate(result.scores))
                scores.append(f"{result.round}: {shown} (Done: {names[result.done_seat]})  ")
            parts.append(scores)
        order = [v for v in game.seats if v.seat.index == mine]
        order += [v for v in game.seats if v.seat.index != mine]
        for view in order:
            parts.append(self._seat(view, names, view.seat.index == mine))
        if game.phase == pb.PHASE_OVER:
            parts.append(Text(self.outcome(game), style="bold"))
        return Group(*parts)

    def _seat(self, view: pb.SeatView, names: list[str], mine: bool) -> RenderableType:
        who = "your" if mine else f"{names[view.seat.index]}'s"
        if not view.visible:
            return Text(
                f"{who} grid: {_tiles(view.on_grid)}, hand: {_tiles(view.in_hand)} (hidden)",
                style="dim",
            )
        title = Text(f"{who} grid", style="bold")
        hand = Text(f"{who} hand: ", style="bold")
        if view.hand:
            for tile in view.hand:
                hand.append(tile.face, style="bold magenta" if tile.face == JOKER else "bold")
                hand.append(f"({tile.id}) ", style="dim")
        else:
            hand.append("empty", style="dim")
        return Group(title, draw_grid(view.grid, mine), hand)

    # -- events ----------------------------------------------------------------------------

    def event_text(self, event: pb.GameEvent, seats: list[str]) -> str:
        kind = event.WhichOneof("body")
        body: Any = getattr(event, kind) if kind else None
        who = _who(seats, body.seat) if hasattr(body, "seat") and kind != "seats_taken" else ""
        secret = body.HasField("secret") if body is not None and _has_secret(body) else False
        match kind:
            case "seats_taken":
                return "seats: " + ", ".join(s.display_name or s.player_id for s in body.seats)
            case "game_created":
                c = body.config
                return (
                    f"created: {len(body.seats)} players, {CHECKING.get(c.checking, '?')} checking,"
                    f" target {c.target}"
                )
            case "round_started":
                return f"round {body.round} starts: bag of {body.bag_size}"
            case "tiles_dealt":
                counts = "/".join(str(c) for c in body.counts)
                unused = f", {body.unused_count} never dealt" if body.unused_count else ""
                return (
                    f"deal ({DEALS.get(body.kind, '?')}): {counts} tiles; bag {body.bag_left} left"
                    f"{unused}"
                )
            case "tile_placed" if secret:
                s = body.secret
                return f"{who} placed {s.letter} ({s.tile}) on {s.x},{s.y}"
            case "tile_moved" if secret:
                s = body.secret
                return f"{who} moved {s.from_x},{s.from_y} to {s.to_x},{s.to_y} ({s.letter})"
            case "tile_taken_back" if secret:
                s = body.secret
                return f"{who} took {s.tile} back from {s.x},{s.y}"
            case "joker_swapped" if secret:
                s = body.secret
                return f"{who} put {s.tile} on {s.x},{s.y}, the joker ({s.joker}) to the hand"
            case "tile_placed" | "tile_moved" | "tile_taken_back" | "joker_swapped":
                return f"{who} {CHANGES.get(event.change, 'changed their grid')}"
            case "take_four_called":
                return f"{who} calls Take Four!"
            case "deal_agreed":
                return f"{who} agrees to a stalemate deal"
            case "agreement_withdrawn":
                return f"{who} withdraws their agreement"
            case "seat_idle":
                return f"{who} is idle: agrees to every stalemate deal until they act"
            case "seat_forfeited":
                return f"{who} forfeits ({body.reason})"
            case "done_called" if body.in_hand:
                return f"{who} calls Done with {body.in_hand} tiles in hand (they count double)"
            case "done_called":
                return f"{who} calls Done"
            case "round_scored":
                scores = ", ".join(f"{_name(seats, i)} {v}" for i, v in enumerate(body.scores))
                valid = "valid" if body.done_valid else "not valid"
                return (
                    f"round {body.round} scored: {scores}"
                    f" (Done by {_name(seats, body.done_seat)}: {valid})"
                )
            case "game_ended":
                winners = " and ".join(_name(seats, w) for w in body.winners)
                verb = "wins" if len(body.winners) == 1 else "share the win"
                return f"game ended: {winners} {verb}"  # by the lowest total, or a forfeit
            case "game_finished":
                return "game over"
        return kind or "?"

    def transcript(self, events: list[pb.GameEvent]) -> str:
        """The game in Take Four notation, line for line as the service's ``ExportGame``.

        A finished game's history shows everything, so its transcript is the export; of a
        game in progress, what the caller may not see is written ``(hidden)``.
        """
        return notation(events)


# -- drawing -----------------------------------------------------------------------------------


def draw_grid(grid: Sequence[pb.GridTile], mine: bool) -> Text:
    """The grid with its x (across) and y (down) coordinates and one free cell around it.

    A joker shows its letter in lower case; ``·`` is a free cell.
    """
    if not grid:
        hint = ": place a first tile anywhere, e.g. place A 0,0" if mine else ""
        return Text(f"  (empty{hint})", style="dim")
    xs = [t.x for t in grid]
    ys = [t.y for t in grid]
    left, right, top, bottom = min(xs) - 1, max(xs) + 1, min(ys) - 1, max(ys) + 1
    if right - left >= MAX_DRAWN or bottom - top >= MAX_DRAWN:
        listed = " ".join(f"{t.letter.lower() if t.joker else t.letter}@{t.x},{t.y}" for t in grid)
        return Text(f"  (too spread out to draw) {listed}")
    cells = {(t.x, t.y): t for t in grid}
    out = Text()
    out.append("   y\\x" + "".join(f"{x:>4}" for x in range(left, right + 1)) + "\n", "dim")
    for y in range(top, bottom + 1):
        out.append(f"{y:>6}", "dim")
        for x in range(left, right + 1):
            tile = cells.get((x, y))
            if tile is None:
                out.append("   ·", "dim")
            elif tile.joker:
                out.append(f"   {tile.letter.lower()}", "bold magenta")
            else:
                out.append(f"   {tile.letter}", "bold")
        if y < bottom:
            out.append("\n")
    return out


def _tiles(count: int) -> str:
    return f"{count} tile" if count == 1 else f"{count} tiles"


def _names(game: pb.Game) -> list[str]:
    return [s.seat.display_name or s.seat.player_id for s in game.seats]


def _name(seats: list[str], seat: int) -> str:
    return seats[seat] if seat < len(seats) else f"seat {seat}"


def _who(seats: list[str], seat: int) -> str:
    return _name(seats, seat)


def _has_secret(message: Any) -> bool:
    return "secret" in message.DESCRIPTOR.fields_by_name


# -- the notation (as the service's export writes it: parlor.rules.takefour.notation) --------------

HIDDEN = "(hidden)"


def notation(events: Sequence[pb.GameEvent]) -> str:
    """The service's export format, written from the events a caller received."""
    game_id = events[0].info.stream_id.partition("-")[2] if events else ""
    writer = _Notation()
    lines = ['[Game "takefour"]', f'[GameId "{game_id}"]']
    for event in events:
        lines += writer.lines(event)
    return "\n".join(lines) + "\n"


class _Notation:
    """Writes one event at a time; knows the faces once ``GameCreated`` has gone by."""

    def __init__(self) -> None:
        self.faces: list[str] = []

    def tile(self, tile_id: int) -> str:
        return f"{tile_id}{self.faces[tile_id] if tile_id < len(self.faces) else JOKER}"

    def tiles(self, ids: Sequence[int]) -> str:
        return ",".join(self.tile(t) for t in ids) or "-"

    def lines(self, event: pb.GameEvent) -> list[str]:
        kind = event.WhichOneof("body")
        body: Any = getattr(event, kind) if kind else None
        if body is None:
            return []
        hidden = _has_secret(body) and not body.HasField("secret")
        secret: Any = body.secret if _has_secret(body) else None
        match kind:
            case "seats_taken":
                return seat_tags([Seat(s.player_id, s.display_name) for s in body.seats])
            case "game_created":
                return self.created(body.config)
            case "round_started":
                return [f"R{body.round} bag {HIDDEN if hidden else _numbers(secret.bag)}"]
            case "tiles_dealt":
                return [self.dealt(body)]
            case "game_ended":
                return [f"end totals {_numbers(body.totals)} winners {_numbers(body.winners)}"]
            case "game_finished":
                return [f"finished {body.reason} ranks {_numbers([r.rank for r in body.results])}"]
            case "round_scored":
                return [self.scored(body, hidden)]
        seat = f"s{body.seat}"
        match kind:
            case "tile_placed" | "tile_moved" | "tile_taken_back" | "joker_swapped" if hidden:
                verb = {"tile_placed": "place", "tile_moved": "move", "tile_taken_back": "back"}
                return [f"{seat} {verb.get(kind, 'swap')} {HIDDEN}"]
            case "tile_placed":
                shown = f"={secret.letter}" if self.tile(secret.tile).endswith(JOKER) else ""
                return [f"{seat} place {self.tile(secret.tile)}{shown} @{secret.x},{secret.y}"]
            case "tile_moved":
                cells = f"{secret.from_x},{secret.from_y} > {secret.to_x},{secret.to_y}"
                return [f"{seat} move {cells} {secret.letter}"]
            case "tile_taken_back":
                return [f"{seat} back {secret.x},{secret.y} {self.tile(secret.tile)}"]
            case "joker_swapped":
                swapped = f"{self.tile(secret.tile)} joker {self.tile(secret.joker)}"
                return [f"{seat} swap {secret.x},{secret.y} {swapped}"]
            case "take_four_called":
                return [f"{seat} takefour"]
            case "deal_agreed":
                return [f"{seat} agree"]
            case "agreement_withdrawn":
                return [f"{seat} withdraw"]
            case "seat_idle":
                return [f"{seat} idle"]
            case "seat_forfeited":
                return [f"{seat} forfeit {body.reason}"]
            case "done_called":
                words = "" if hidden else f" words {','.join(secret.accepted) or '-'}"
                held = f" in_hand {body.in_hand}" if body.in_hand else ""
                return [f"{seat} done{held}{words}"]
        return []

    def created(self, config: pb.Config) -> list[str]:
        self.faces = faces(config.tiles)
        spec = " ".join(f"{s.letter}{s.count}:{s.value}" for s in config.tiles.letters)
        return [
            f'[Lexicon "{config.lexicon}"]',
            f'[Checking "{CHECKING.get(config.checking, "?")}"]',
            f'[Target "{config.target}"]',
            f'[MaxRounds "{config.max_rounds or "-"}"]',
            f'[DealSize "{config.deal_size}"]',
            f'[Rules "{config.rules_version or 1}"]',
            f'[Tiles "{spec} ?{config.tiles.jokers}:{config.tiles.joker_value}"]',
        ]

    def dealt(self, body: pb.TilesDealt) -> str:
        hands = list(body.secret.hands)
        parts = []
        for seat, count in enumerate(body.counts):
            if seat < len(hands) and hands[seat].tiles:
                parts.append(f"s{seat}:{self.tiles(hands[seat].tiles)}")
            else:
                parts.append(f"s{seat}:" + ("-" if count == 0 else f"({count} hidden)"))
        unused = body.secret.unused
        left_over = (
            self.tiles(unused)
            if unused or not body.unused_count
            else f"({body.unused_count} hidden)"
        )
        kind = DEALS.get(body.kind, "?")
        return f"D{body.round} {kind} {' '.join(parts)} unused:{left_over} left:{body.bag_left}"

    def scored(self, body: pb.RoundScored, hidden: bool) -> str:
        if hidden:
            lost = HIDDEN
        else:
            removed = list(body.secret.removed)

            def cells(seat: int) -> str:
                shown = removed[seat].cells if seat < len(removed) else ()
                return ";".join(f"{c.x},{c.y}" for c in shown) or "-"

            lost = " ".join(f"s{seat}:{cells(seat)}" for seat in range(len(body.scores)))
        valid = "valid" if body.done_valid else "invalid"
        return (
            f"S{body.round} done s{body.done_seat} {valid} scores {_numbers(body.scores)}"
            f" totals {_numbers(body.totals)} removed {lost}"
        )


def _numbers(values: Sequence[int]) -> str:
    return ",".join(str(v) for v in values) or "-"
