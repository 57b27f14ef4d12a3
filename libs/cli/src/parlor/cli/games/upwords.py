"""Upwords in the terminal: the 10x10 board of stacks, your rack, scores, moves typed as text.

Each square shows its top letter and its stack height (``E2``: an E on a stack of two),
coloured by height, so a word's letters and the heights that score it read together.
Typed turns (case does not matter):

- a play in the game's notation, as the service reads it: ``5E WORD`` across from row 5,
  column E; ``E5 WORD`` down; letters already on the board and kept are in parentheses,
  ``5E W(O)RD``; the Qu tile is ``QU``;
- the same play with the direction spelled out: ``E5 across WORD``, ``E5 down WORD``;
- ``pass`` (or ``-``), ``exchange X`` (or ``-X``), ``challenge``, ``accept``.

Racks are secret: the service sends the viewer's own rack only, and every rack once the
game has ended; the board shows what it is sent and never asks for more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from parlor.cli.games.calls import ServiceCalls
from parlor.gamehost.wire.export import seat_tags
from parlor.gametypes.seats import Seat
from parlor.upwords.v1 import upwords_pb2 as pb

SIZE = 10
COLUMNS = "ABCDEFGHIJ"
CENTRE = {(4, 4), (4, 5), (5, 4), (5, 5)}
HEIGHT_STYLES = ("", "bold white", "bold cyan", "bold green", "bold yellow", "bold red")
"""Style of a square by its stack height (1 to 5); index 0 is unused."""
CHECKING = {pb.WORD_CHECKING_AUTO: "auto", pb.WORD_CHECKING_CHALLENGE: "challenge"}

_SQUARE = r"(?:[a-j](?:10|[1-9])|(?:10|[1-9])[a-j])"
_SPELLED = re.compile(rf"^({_SQUARE})\s+(across|down)\s+(\S+)$")
_EXCHANGE = re.compile(r"^(?:exchange|swap)\s+(\S+)$")


@dataclass(frozen=True)
class Turn:
    """One typed turn, read: which call it is (play, pass, exchange, challenge, accept)
    and its argument (a play in notation, or the tile to exchange)."""

    kind: str
    argument: str = ""


def read_turn(typed: str) -> Turn:
    """What a typed line asks for; a play is passed on in the service's notation.

    ``E5 across WORD`` names the square and the direction; the notation says the
    direction by the order of the coordinate (row first: across), so it becomes ``5E WORD``.
    Anything else that is not a pass, an exchange, a challenge or an accept goes to the
    service as written, which answers ``INVALID_NOTATION`` with the reason if it cannot read it.
    """
    text = " ".join(typed.strip().lower().split())
    if text in ("pass", "-"):
        return Turn("pass")
    if text == "challenge":
        return Turn("challenge")
    if text in ("accept", "accept play"):
        return Turn("accept")
    if m := _EXCHANGE.match(text):
        return Turn("exchange", m.group(1).upper())
    if text.startswith("-") and " " not in text:
        return Turn("exchange", text[1:].upper())
    if m := _SPELLED.match(text):
        square, direction, word = m.groups()
        column = next(ch for ch in square if ch.isalpha()).upper()
        row = "".join(ch for ch in square if ch.isdigit())
        coordinate = f"{row}{column}" if direction == "across" else f"{column}{row}"
        return Turn("play", f"{coordinate} {word.upper()}")
    return Turn("play", text.upper())


def outcome_of(game: pb.Game) -> str:
    """Who won, why the game ended, and the final scores."""
    if game.status != pb.STATUS_ENDED:
        return "in progress"
    if game.aborted:
        return "aborted before it started: no result"
    names = seat_names(game)
    winners = " and ".join(names[s] for s in game.winners if s < len(names))
    scores = ", ".join(f"{n} {s}" for n, s in zip(names, game.scores, strict=False))
    verb = "wins" if len(game.winners) == 1 else "win"
    return f"{winners} {verb} ({game.end_reason}); final scores: {scores}"


def seat_names(game: pb.Game) -> list[str]:
    return [s.display_name or s.player_id for s in game.seats]


def tiles_text(tiles: Any) -> str:
    return " ".join(tiles) if len(tiles) else "(none)"


class Upwords(ServiceCalls):
    """The Upwords adapter (see ``parlor.cli.games.GameAdapter``)."""

    name = "upwords"
    move_help = (
        "5E WORD across / E5 WORD down, (O) keeps a board letter, QU for Qu;"
        " pass; exchange X; challenge; accept"
    )
    default_opponent = "bot:best"

    # -- calls -----------------------------------------------------------------------------

    async def play(self, game: pb.Game, move: str, command_id: str) -> tuple[pb.Game, list[Any]]:
        """A typed turn: a play, pass, exchange, challenge or accept (each its own RPC).

        A challenge or accept names the play awaiting challenge in ``game``, the one the
        player saw: if another play is pending by the time it arrives (in a game of three or
        four the next seat may have played), the service refuses it (``PLAY_CHANGED``).
        """
        turn = read_turn(move)
        ids = {"game_id": game.game_id, "command_id": command_id}
        meant = {"play": game.pending.number}
        match turn.kind:
            case "pass":
                response = await self.api.command("Pass", **ids)
            case "exchange":
                response = await self.api.command("Exchange", **ids, tile=turn.argument)
            case "challenge":
                response = await self.api.command("Challenge", **ids, **meant)
            case "accept":
                response = await self.api.command("AcceptPlay", **ids, **meant)
            case _:
                response = await self.api.command("Play", **ids, move=turn.argument)
        return response.game, list(response.events)

    # -- reading a game --------------------------------------------------------------------

    def is_over(self, game: pb.Game) -> bool:
        return game.status == pb.STATUS_ENDED

    def to_move(self, game: pb.Game) -> str | None:
        if game.status != pb.STATUS_IN_PROGRESS or game.to_move >= len(game.seats):
            return None
        return game.seats[game.to_move].player_id

    def outcome(self, game: pb.Game) -> str:
        return outcome_of(game)

    def draw(self, game: pb.Game, me: str | None) -> RenderableType:
        """The board (letter + stack height, coloured by height), seats, rack, bag, pending."""
        return Group(board_text(game), seats_text(game, me), footer_text(game, me))

    # -- events ----------------------------------------------------------------------------

    def event_text(self, event: pb.GameEvent, seats: list[str]) -> str:
        kind = event.WhichOneof("body")

        def who(seat: int) -> str:
            return seats[seat] if seat < len(seats) else f"seat {seat}"

        match kind:
            case "seats_taken":
                taken = event.seats_taken.seats
                return "seats: " + ", ".join(
                    f"{s.index}={s.display_name or s.player_id}" for s in taken
                )
            case "game_created":
                c = event.game_created
                draws = " / ".join(
                    " ".join(f"{who(d.seat)} {d.tile}" for d in r.draws) for r in c.first_draw
                )
                return (
                    f"created: {CHECKING.get(c.config.word_checking, 'auto')} word checking,"
                    f" lexicon {c.config.lexicon or 'default'}; first draw {draws};"
                    f" {who(c.first_seat)} starts"
                )
            case "word_played":
                w = event.word_played
                bonus = f", bonus {w.bonus}" if w.bonus else ""
                return f"{who(w.seat)} {event.notation} +{w.score} ({', '.join(w.words)}{bonus})"
            case "tiles_drawn":
                t = event.tiles_drawn
                seen = f": {' '.join(t.drawn)}" if t.drawn else ""
                return f"{who(t.seat)} draws {t.count}{seen}"
            case "passed":
                return f"{who(event.passed.seat)} passes"
            case "tile_exchanged":
                x = event.tile_exchanged
                if x.returned:
                    return f"{who(x.seat)} exchanges {x.returned} for {x.drawn or '?'}"
                return f"{who(x.seat)} exchanges a tile"
            case "play_accepted":
                return f"{who(event.play_accepted.seat)}'s play stands"
            case "challenge_failed":
                f = event.challenge_failed
                return f"{who(f.challenger)} challenges {who(f.seat)}: every word is good"
            case "play_withdrawn":
                w2 = event.play_withdrawn
                return (
                    f"{who(w2.challenger)} challenges {who(w2.seat)}:"
                    f" {', '.join(w2.invalid_words)} not a word; play taken back (-{w2.score})"
                )
            case "player_resigned":
                return f"{who(event.player_resigned.seat)} resigns"
            case "player_timed_out":
                return f"{who(event.player_timed_out.seat)} ran out of time and is out"
            case "game_ended":
                e = event.game_ended
                scores = ", ".join(f"{who(i)} {s}" for i, s in enumerate(e.final_scores))
                winners = " and ".join(who(s) for s in e.winners)
                return f"game ends ({e.reason}): {scores}; won by {winners}"
            case "game_finished":
                return "game over"
        return kind or "?"

    def transcript(self, events: list[pb.GameEvent]) -> str:
        """The game's record, in the service's GCG-like notation (``ExportGame``'s, line for line,
        once the game is over); racks nobody may see yet are left out of the turn lines."""
        return Record().of(events)


# -- the record --------------------------------------------------------------------------------


class Record:
    """Builds the record from events as ``parlor.rules.upwords.record.export_game`` does.

    Racks and scores are followed event by event; a rack is known while every tile in
    and out of it was shown (always, once the game is over).
    """

    def __init__(self) -> None:
        self.seats: list[str] = []
        self.scores: list[int] = []
        self.racks: list[list[str] | None] = []
        self.lines: list[str] = []

    def of(self, events: list[pb.GameEvent]) -> str:
        for event in events:
            self.add(event)
        return "\n".join(self.lines) + "\n"

    def _rack(self, seat: int) -> str:
        rack = self.racks[seat] if seat < len(self.racks) else None
        return "" if rack is None else "".join(t.upper() for t in rack) + " "

    def _turn(self, seat: int, rack: str, move: str, score: str, total: int) -> None:
        self.lines.append(f">{self.seats[seat]}: {rack}{move} {score} {total}")

    def add(self, event: pb.GameEvent) -> None:
        kind = event.WhichOneof("body")
        if kind == "seats_taken":
            taken = event.seats_taken.seats
            self.lines += seat_tags([Seat(s.player_id, s.display_name) for s in taken])
        elif kind == "game_created":
            c = event.game_created
            self.seats = list(c.seats)
            self.scores = [0] * len(self.seats)
            given = {r.seat: list(r.tiles) for r in c.racks}
            self.racks = [given.get(i) for i in range(len(self.seats))]
            self.lines += ["#game upwords", f"#lexicon {c.config.lexicon}"]
            self.lines.append(f"#word-checking {CHECKING.get(c.config.word_checking, 'auto')}")
            plural = c.config.plural_rule if c.config.HasField("plural_rule") else True
            self.lines.append(f"#plural-rule {'on' if plural else 'off'}")
            self.lines += [f"#player{i + 1} {i} {s}" for i, s in enumerate(self.seats)]
            for r in c.first_draw:
                self.lines.append(
                    "#first-draw " + " ".join(f"{d.seat}:{d.tile.upper()}" for d in r.draws)
                )
        elif kind == "word_played":
            w = event.word_played
            self.scores[w.seat] += w.score
            self._turn(
                w.seat, self._rack(w.seat), event.notation, f"+{w.score}", self.scores[w.seat]
            )
            self._take(w.seat, [p.tile for p in w.placements])
        elif kind == "tiles_drawn":
            t = event.tiles_drawn
            self._give(t.seat, list(t.drawn) if len(t.drawn) == t.count else None)
        elif kind == "passed":
            seat = event.passed.seat
            self._turn(seat, self._rack(seat), "-", "+0", self.scores[seat])
        elif kind == "tile_exchanged":
            x = event.tile_exchanged
            move = f"-{(x.returned or '?').upper()}"
            self._turn(x.seat, self._rack(x.seat), move, "+0", self.scores[x.seat])
            if x.returned and x.drawn:
                self._take(x.seat, [x.returned])
                self._give(x.seat, [x.drawn])
            else:
                self.racks[x.seat] = None
        elif kind == "play_withdrawn":
            w2 = event.play_withdrawn
            back = [p.tile for p in w2.placements]
            self.scores[w2.seat] -= w2.score
            self._give(w2.seat, back)
            self._turn(w2.seat, self._rack(w2.seat), "--", f"-{w2.score}", self.scores[w2.seat])
            self.lines.append(f"#challenge {self.seats[w2.challenger]} won")
        elif kind == "challenge_failed":
            self.lines.append(f"#challenge {self.seats[event.challenge_failed.challenger]} lost")
        elif kind == "player_resigned":
            self.lines.append(f"#resigned {self.seats[event.player_resigned.seat]}")
        elif kind == "player_timed_out":
            self.lines.append(f"#timeout {self.seats[event.player_timed_out.seat]}")
        elif kind == "game_ended":
            e = event.game_ended
            left = {r.seat: r.tiles for r in e.racks_left}
            for seat, penalty in enumerate(e.penalties):
                if penalty:
                    tiles = "".join(t.upper() for t in left.get(seat, []))
                    self.lines.append(
                        f">{self.seats[seat]}: ({tiles}) -{penalty} {e.final_scores[seat]}"
                    )
            winners = " ".join(self.seats[s] for s in e.winners)
            self.lines.append(f"#end {e.reason} winners {winners}")

    def _take(self, seat: int, tiles: list[str]) -> None:
        rack = self.racks[seat]
        if rack is None:
            return
        for tile in tiles:
            if tile not in rack:
                self.racks[seat] = None
                return
            rack.remove(tile)

    def _give(self, seat: int, tiles: list[str] | None) -> None:
        rack = self.racks[seat]
        if rack is None or tiles is None:
            self.racks[seat] = None
            return
        rack.extend(tiles)


# -- drawing -----------------------------------------------------------------------------------


def square(stack: pb.Stack, centre: bool, pending: bool) -> Text:
    """Three characters: the top letter right-aligned and the height (``" E2"``, ``"Qu1"``)."""
    height = len(stack.tiles)
    if not height:
        return Text(" + " if centre else " . ", style="dim")
    style = HEIGHT_STYLES[min(height, len(HEIGHT_STYLES) - 1)]
    if pending:
        style += " underline"
    return Text(f"{stack.tiles[-1]:>2}{height}", style=style)


def board_text(game: pb.Game) -> Text:
    pending = {(p.row, p.col) for p in game.pending.placements}
    out = Text()
    out.append("    " + " ".join(f"{c:^3}" for c in COLUMNS) + "\n", style="bold")
    for r in range(SIZE):
        out.append(f"{r + 1:>3} ")
        for c in range(SIZE):
            index = r * SIZE + c
            stack = game.board[index] if index < len(game.board) else pb.Stack()
            out.append_text(square(stack, (r, c) in CENTRE, (r, c) in pending))
            out.append(" " if c < SIZE - 1 else "\n")
    legend = "    letter + stack height (E2: an E on a stack of 2); height "
    out.append(legend, style="dim")
    for h in range(1, len(HEIGHT_STYLES)):
        out.append(str(h), style=HEIGHT_STYLES[h])
        out.append(" " if h < len(HEIGHT_STYLES) - 1 else "\n")
    return out


def seats_text(game: pb.Game, me: str | None) -> Text:
    revealed = {r.seat: r.tiles for r in game.racks}
    viewer = game.viewer_seat if game.HasField("viewer_seat") else None
    out = Text()
    for seat in game.seats:
        i = seat.index
        marker = "→ " if game.status == pb.STATUS_IN_PROGRESS and game.to_move == i else "  "
        mine = i == viewer or (me is not None and seat.player_id == me)
        out.append(marker)
        out.append(f"{seat.display_name or seat.player_id}", style="bold" if mine else "")
        out.append(" (you)" if mine else "")
        score = game.scores[i] if i < len(game.scores) else 0
        size = game.rack_sizes[i] if i < len(game.rack_sizes) else 0
        out.append(f": {score} points, {size} tiles")
        if i in revealed and not (mine and i == viewer):
            out.append(f" [{tiles_text(revealed[i])}]", style="dim")
        out.append("\n")
    if viewer is not None and game.status != pb.STATUS_UNSPECIFIED:
        out.append("your rack: ", style="bold")
        out.append(tiles_text(game.rack) + "\n", style="bold magenta")
    return out


def footer_text(game: pb.Game, me: str | None) -> Text:
    out = Text()
    out.append(f"bag: {game.bag_count} tiles", style="dim")
    out.append(
        f"  ·  {CHECKING.get(game.config.word_checking, 'auto')} word checking\n", style="dim"
    )
    names = seat_names(game)
    if game.pending.placements:
        p = game.pending
        who = names[p.seat] if p.seat < len(names) else f"seat {p.seat}"
        out.append(
            f"awaiting challenge: {', '.join(p.words)} by {who} (+{p.score})", style="yellow"
        )
        mine = me is not None and p.seat < len(game.seats) and game.seats[p.seat].player_id == me
        out.append("\n" if mine else " — type challenge or accept, or just play on\n")
    if game.status == pb.STATUS_ENDED:
        out.append(outcome_of(game), style="bold")
    elif game.status == pb.STATUS_IN_PROGRESS and game.to_move < len(names):
        out.append(f"{names[game.to_move]} to play", style="bold")
        if game.retry:
            out.append(" (the play was taken back: play again or pass)")
        if game.passes:
            out.append(f"; {game.passes} pass{'es' if game.passes > 1 else ''} in a row", "dim")
    else:
        out.append("seats taken; the game is being set up", style="dim")
    return out
