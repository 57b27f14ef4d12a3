"""Connect 4x4 in the terminal: both sides side by side, whose turn, legal moves, notation."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from parlor.cli.games.calls import ServiceCalls
from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb

COLUMNS, ROWS = 7, 6
LETTERS = "abcdefg"
SYMBOLS = "RYGB"
COLOURS = ("bold red", "bold yellow", "bold green", "bold blue")


class Connect4x4(ServiceCalls):
    """The Connect 4x4 adapter (see ``parlor.cli.games.GameAdapter``)."""

    name = "connect4x4"
    move_help = "column a-g + f/b for a checker (df, gb), + x for a blocker (cx)"
    default_opponent = "bot:greedy"

    # -- calls -----------------------------------------------------------------------------

    async def play(self, game: pb.Game, move: str, command_id: str) -> tuple[pb.Game, list[Any]]:
        response = await self.api.command(
            "PlayMove", game_id=game.game_id, move=move, command_id=command_id
        )
        return response.game, list(response.events)

    # -- reading a game --------------------------------------------------------------------

    def is_over(self, game: pb.Game) -> bool:
        return game.status in (pb.STATUS_WON, pb.STATUS_TIED, pb.STATUS_ABORTED)

    def to_move(self, game: pb.Game) -> str | None:
        if game.status != pb.STATUS_IN_PROGRESS:
            return None
        return game.seats[game.turn].player_id

    def outcome(self, game: pb.Game) -> str:
        if game.status == pb.STATUS_WON:
            winner = game.seats[game.winner]
            return f"{SYMBOLS[game.winner]} {winner.display_name} wins ({game.end_reason})"
        if game.status == pb.STATUS_TIED:
            return f"tie ({game.end_reason})"
        if game.status == pb.STATUS_ABORTED:
            return "aborted before it started: no result"
        return "in progress"

    def draw(self, game: pb.Game, me: str | None) -> RenderableType:
        """Front and back next to each other, row 5 on top; the back seen through the front."""
        line = {(p.column, p.row) for p in game.line}
        width = 2 * COLUMNS - 1
        board = Text()
        board.append(f"    {'FRONT':^{width}}      {'BACK':^{width}}\n", style="bold")
        for row in reversed(range(ROWS)):
            board.append(f" {row} |")
            for holes in (game.front, game.back):
                for column in range(COLUMNS):
                    hole = holes[column * ROWS + row]
                    symbol, style = _cell(hole)
                    if (column, row) in line and hole.content == pb.CONTENT_CHECKER:
                        style += " reverse"
                    board.append(symbol, style=style)
                    board.append(" " if column < COLUMNS - 1 else "")
                board.append("|" if holes is game.back else "|    |")
            board.append("\n")
        letters = " ".join(LETTERS)
        board.append(f"    {letters}        {letters}\n", style="dim")
        seats = Text()
        for seat in game.seats:
            i = seat.index
            marker = "→ " if game.status == pb.STATUS_IN_PROGRESS and game.turn == i else "  "
            you = " (you)" if me is not None and seat.player_id == me else ""
            out = " resigned" if len(game.resigned) > i and game.resigned[i] else ""
            if len(game.timed_out) > i and game.timed_out[i]:
                out = " out of time"
            seats.append(marker)
            seats.append(SYMBOLS[i], style=COLOURS[i])
            seats.append(f" {seat.display_name or seat.player_id}{you}")
            if i < len(game.checkers_left):
                seats.append(
                    f": {game.checkers_left[i]} checkers, {game.blockers_left[i]} blockers{out}"
                )
            seats.append("\n")
        footer = Text()
        if self.is_over(game):
            footer.append(self.outcome(game), style="bold")
        elif game.status != pb.STATUS_IN_PROGRESS:
            footer.append("seats taken; the game is being set up", style="dim")
        else:
            footer.append(f"move {game.moves + 1}: ", style="bold")
            footer.append(SYMBOLS[game.turn], style=COLOURS[game.turn])
            footer.append(f" {game.seats[game.turn].display_name} to play\n")
            footer.append("legal: " + " ".join(game.legal_moves), style="dim")
        legend = Text("# blocker  ~ dead cell  . empty", style="dim")
        return Group(board, seats, legend, footer)

    # -- events ----------------------------------------------------------------------------

    def event_text(self, event: pb.GameEvent, seats: list[str]) -> str:
        kind = event.WhichOneof("body")
        body = getattr(event, kind) if kind else None
        match kind:
            case "seats_taken":
                assert isinstance(body, common_pb2.SeatsTaken)
                return "seats: " + ", ".join(
                    f"{SYMBOLS[s.index]}={s.display_name or s.player_id}" for s in body.seats
                )
            case "game_created":
                assert isinstance(body, pb.GameCreated)
                return (
                    f"created: {body.config.players} players, seat {body.config.first_seat} first"
                )
            case "checker_dropped" | "blocker_dropped":
                return f"{_who(seats, body.seat)} {event.notation}"  # type: ignore[union-attr]
            case "player_skipped":
                assert isinstance(body, pb.PlayerSkipped)
                return f"{_who(seats, body.seat)} skipped ({body.reason})"
            case "player_resigned":
                assert isinstance(body, pb.PlayerResigned)
                return f"{_who(seats, body.seat)} resigns"
            case "player_timed_out":
                assert isinstance(body, pb.PlayerTimedOut)
                return f"{_who(seats, body.seat)} ran out of time"
            case "game_won":
                assert isinstance(body, pb.GameWon)
                cells = " ".join(f"{LETTERS[p.column]}{p.row}" for p in body.line)
                return (
                    f"{_who(seats, body.seat)} wins ({body.reason}{': ' + cells if cells else ''})"
                )
            case "game_tied":
                assert isinstance(body, pb.GameTied)
                return f"tie ({body.reason})"
            case "game_finished":
                return "game over"
        return kind or "?"

    def transcript(self, events: list[pb.GameEvent]) -> str:
        """The game in notation: a header, numbered moves with the mover's seat letter, the end."""
        seats: list[str] = []
        lines: list[str] = []
        moves: list[str] = []
        for event in events:
            kind = event.WhichOneof("body")
            if kind == "seats_taken":
                seats = [s.display_name or s.player_id for s in event.seats_taken.seats]
                lines.append(f'[Game "connect4x4-{event.info.stream_id.partition("-")[2]}"]')
                for s in event.seats_taken.seats:
                    lines.append(f'[{SYMBOLS[s.index]} "{s.display_name or s.player_id}"]')
            elif kind in ("checker_dropped", "blocker_dropped"):
                seat = getattr(event, kind).seat
                moves.append(f"{len(moves) + 1}. {SYMBOLS[seat]} {event.notation}")
            elif kind in (
                "player_skipped",
                "player_resigned",
                "player_timed_out",
                "game_won",
                "game_tied",
            ):
                moves.append(f"   {self.event_text(event, seats)}")
        return "\n".join([*lines, "", *moves]) + "\n"


def _who(seats: list[str], seat: int) -> str:
    return f"{SYMBOLS[seat]} {seats[seat] if seat < len(seats) else seat}"


def _cell(hole: pb.Hole) -> tuple[str, str]:
    if hole.content == pb.CONTENT_CHECKER:
        return SYMBOLS[hole.seat], COLOURS[hole.seat]
    if hole.content == pb.CONTENT_BLOCKER:
        return "#", "bold magenta"
    if hole.content == pb.CONTENT_DEAD:
        return "~", "dim"
    return ".", "dim"
