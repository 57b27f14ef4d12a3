"""Connect 4x4 as a pure decider: commands become events, events fold into state.

The whole game reads top to bottom here: who may move, where pieces land, when
a line wins, who is skipped and when the game is tied.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final, TypeVar

from parlor.core.errors import InvalidArgument, PermissionDenied, RuleViolation
from parlor.core.game import RESIGNED, TIMED_OUT, departed
from parlor.rules.connect4x4.board import (
    COLUMNS,
    ROWS,
    SIDES,
    Cell,
    Position,
    Side,
    bit,
    bit_index,
    column_letter,
    line_positions,
    line_through,
)
from parlor.rules.connect4x4.commands import (
    BLOCKERS_PER_PLAYER,
    CHECKERS_PER_PLAYER,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Command,
    Config,
    CreateGame,
    DropBlocker,
    DropChecker,
    Move,
    Resign,
    TimeOut,
)
from parlor.rules.connect4x4.events import (
    ALL_CHECKERS_USED,
    FOUR_IN_A_LINE,
    NO_LEGAL_MOVES,
    NO_OPEN_CELL,
    NO_PIECES_LEFT,
    RESIGNATION,
    TIMEOUT,
    BlockerDropped,
    CheckerDropped,
    Event,
    GameCreated,
    GameTied,
    GameWon,
    PlayerResigned,
    PlayerSkipped,
    PlayerTimedOut,
)
from parlor.rules.connect4x4.state import State, Status

T = TypeVar("T")

# Rule names: the ``reason`` of every refusal, stable for clients.
GAME_NOT_STARTED: Final = "GAME_NOT_STARTED"
GAME_ALREADY_CREATED: Final = "GAME_ALREADY_CREATED"
GAME_OVER: Final = "GAME_OVER"
PLAYER_RESIGNED: Final = "PLAYER_RESIGNED"
SEAT_TIMED_OUT: Final = "SEAT_TIMED_OUT"
"""A seat that ran out of time acts (Upwords' reason for the same): it is out of the game."""
NOT_YOUR_TURN: Final = "NOT_YOUR_TURN"
NO_CHECKERS_LEFT: Final = "NO_CHECKERS_LEFT"
NO_BLOCKERS_LEFT: Final = "NO_BLOCKERS_LEFT"
COLUMN_FULL: Final = "COLUMN_FULL"
BLOCKER_ROW_OFF_BOARD: Final = "BLOCKER_ROW_OFF_BOARD"
# Reasons of InvalidArgument: the request is malformed whatever the game.
INVALID_CONFIG: Final = "INVALID_CONFIG"
INVALID_SEAT: Final = "INVALID_SEAT"
INVALID_COLUMN: Final = "INVALID_COLUMN"
INVALID_SIDE: Final = "INVALID_SIDE"
INVALID_COMMAND: Final = "INVALID_COMMAND"


def initial_state() -> State:
    return State()


# --- decide -------------------------------------------------------------------------------


def decide(state: State, command: Command) -> list[Event]:
    """The events a command produces; refuses with the rule it breaks."""
    if isinstance(command, CreateGame):
        return _create(state, command.config)
    if not isinstance(command, DropChecker | DropBlocker | Resign | TimeOut):
        raise InvalidArgument(f"not a Connect 4x4 command: {command!r}", reason=INVALID_COMMAND)
    if state.status is Status.NOT_STARTED:
        raise RuleViolation(GAME_NOT_STARTED, "the game has not been created yet")
    _check_seat(state, command.seat)
    if isinstance(command, Resign):
        return _resign(state, command.seat)
    if isinstance(command, TimeOut):
        return _time_out(state, command.seat)
    _check_column(command.column)
    if isinstance(command, DropChecker) and not isinstance(command.side, Side):
        raise InvalidArgument(
            f"side must be front or back, got {command.side!r}", reason=INVALID_SIDE
        )
    _check_may_move(state, command.seat)
    if isinstance(command, DropChecker):
        return _drop_checker(state, command)
    return _drop_blocker(state, command)


def _create(state: State, config: Config) -> list[Event]:
    if state.status is not Status.NOT_STARTED:
        raise RuleViolation(GAME_ALREADY_CREATED, "the game has already been created")
    if not isinstance(config, Config):
        raise InvalidArgument("CreateGame needs a Config", reason=INVALID_CONFIG)
    if not _is_int(config.players) or not MIN_PLAYERS <= config.players <= MAX_PLAYERS:
        raise InvalidArgument(
            f"Connect 4x4 is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got {config.players!r}",
            reason=INVALID_CONFIG,
        )
    if not _is_int(config.first_seat) or not 0 <= config.first_seat < config.players:
        raise InvalidArgument(f"no seat {config.first_seat!r} to start", reason=INVALID_SEAT)
    if not isinstance(config.blockers_count_toward_lines, bool):
        raise InvalidArgument("blockers_count_toward_lines must be a bool", reason=INVALID_CONFIG)
    return [GameCreated(config)]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_seat(state: State, seat: int) -> None:
    if not _is_int(seat) or not 0 <= seat < state.players:
        raise InvalidArgument(
            f"seat must be 0 to {state.players - 1}, got {seat!r}", reason=INVALID_SEAT
        )


def _check_column(column: int) -> None:
    if not _is_int(column) or not 0 <= column < COLUMNS:
        raise InvalidArgument(
            f"column must be 0 to {COLUMNS - 1}, got {column!r}", reason=INVALID_COLUMN
        )


def _check_may_move(state: State, seat: int) -> None:
    if state.over:
        raise RuleViolation(GAME_OVER, "the game is over")
    _check_in_game(state, seat)
    if seat != state.turn:
        raise PermissionDenied(f"it is seat {state.turn}'s turn", reason=NOT_YOUR_TURN)


def _check_in_game(state: State, seat: int, already: str = "") -> None:
    """Refuse a seat that left the game, saying why it left (resigned or ran out of time)."""
    if state.has_timed_out(seat):
        raise RuleViolation(
            SEAT_TIMED_OUT, f"seat {seat} ran out of time and is out", metadata=departed(TIMED_OUT)
        )
    if state.has_resigned(seat):
        raise RuleViolation(
            PLAYER_RESIGNED, f"seat {seat} has {already}resigned", metadata=departed(RESIGNED)
        )


def _drop_checker(state: State, command: DropChecker) -> list[Event]:
    seat, column, side = command.seat, command.column, command.side
    if not state.checkers_left[seat]:
        raise RuleViolation(NO_CHECKERS_LEFT, f"seat {seat} has used all its checkers")
    row = state.height(column, side)
    if row >= ROWS:
        raise RuleViolation(
            COLUMN_FULL, f"column {column_letter(column)} is full on the {side.value} side"
        )
    event = CheckerDropped(seat, column, side, row)
    return [event, *_aftermath(evolve(state, event), seat, bit_index(column, row))]


def _drop_blocker(state: State, command: DropBlocker) -> list[Event]:
    seat, column = command.seat, command.column
    if not state.blockers_left[seat]:
        raise RuleViolation(NO_BLOCKERS_LEFT, f"seat {seat} has used both its blockers")
    row = state.blocker_row(column)
    if row >= ROWS:
        raise RuleViolation(
            BLOCKER_ROW_OFF_BOARD,
            f"a blocker in column {column_letter(column)} would stop above the top row",
        )
    dead = tuple(
        Cell(column, r, side) for side in SIDES for r in range(state.height(column, side), row)
    )
    event = BlockerDropped(seat, column, row, dead)
    placed = bit_index(column, row) if state.config.blockers_count_toward_lines else None
    return [event, *_aftermath(evolve(state, event), seat, placed)]


def _resign(state: State, seat: int) -> list[Event]:
    if state.over:
        raise RuleViolation(GAME_OVER, "the game is over")
    _check_in_game(state, seat, "already ")
    event = PlayerResigned(seat)
    return [event, *_aftermath(evolve(state, event), seat, None)]


def _time_out(state: State, seat: int) -> list[Event]:
    """A seat out of time leaves the game: with two players the other wins; with more,
    its turns are skipped and the game goes on (docs/rules/connect4x4.md, "Time")."""
    if state.over:
        raise RuleViolation(GAME_OVER, "the game is over")
    _check_in_game(state, seat, "already ")
    event = PlayerTimedOut(seat)
    return [event, *_aftermath(evolve(state, event), seat, None, TIMEOUT)]


def _aftermath(
    after: State, actor: int, placed: int | None, alone: str = RESIGNATION
) -> list[Event]:
    """What follows a move or a resignation: a win, a tie, or whoever plays next."""
    if placed is not None:
        line = line_through(after.line_pieces(actor), placed)
        if line:
            return [GameWon(actor, line_positions(line), FOUR_IN_A_LINE)]
    active = after.active_seats()
    if len(active) == 1:
        return [GameWon(active[0], (), alone)]
    if all(after.checkers_left[seat] == 0 for seat in active):
        return [GameTied(ALL_CHECKERS_USED)]
    skipped: list[Event] = []
    seat = after.turn
    for _ in active:
        if after.can_move(seat):
            return skipped
        holds_pieces = after.checkers_left[seat] or after.blockers_left[seat]
        reason = NO_OPEN_CELL if holds_pieces else NO_PIECES_LEFT
        skipped.append(PlayerSkipped(seat, reason))
        seat = after.next_active(seat)
    return [GameTied(NO_LEGAL_MOVES)]


# --- evolve -------------------------------------------------------------------------------


def evolve(state: State, event: Event) -> State:
    """The state after one event; events are facts and are never refused."""
    if isinstance(event, CheckerDropped):
        seat, b = event.seat, bit(event.column, event.row)
        front, back = state.front, state.back
        if event.side is Side.FRONT:
            front = _with(front, seat, front[seat] | b)
        else:
            back = _with(back, seat, back[seat] | b)
        # Built field by field rather than with dataclasses.replace: this is the hot path.
        return State(
            config=state.config,
            status=state.status,
            turn=state.next_active(seat),
            front=front,
            back=back,
            blockers=state.blockers,
            dead_front=state.dead_front,
            dead_back=state.dead_back,
            heights=_with(state.heights, event.side.index * COLUMNS + event.column, event.row + 1),
            checkers_left=_with(state.checkers_left, seat, state.checkers_left[seat] - 1),
            blockers_left=state.blockers_left,
            resigned=state.resigned,
            timed_out=state.timed_out,
            winner=state.winner,
            line=state.line,
            end_reason=state.end_reason,
            moves=state.moves + 1,
        )
    if isinstance(event, BlockerDropped):
        seat, column = event.seat, event.column
        dead_front, dead_back = state.dead_front, state.dead_back
        for cell in event.dead:
            if cell.side is Side.FRONT:
                dead_front |= bit(cell.column, cell.row)
            else:
                dead_back |= bit(cell.column, cell.row)
        top = event.row + 1
        heights = _with(_with(state.heights, column, top), COLUMNS + column, top)
        return replace(
            state,
            blockers=_with(state.blockers, seat, state.blockers[seat] | bit(column, event.row)),
            dead_front=dead_front,
            dead_back=dead_back,
            heights=heights,
            blockers_left=_with(state.blockers_left, seat, state.blockers_left[seat] - 1),
            turn=state.next_active(seat),
            moves=state.moves + 1,
        )
    if isinstance(event, PlayerSkipped):
        return replace(state, turn=state.next_active(event.seat))
    if isinstance(event, PlayerResigned):
        state = replace(state, resigned=_with(state.resigned, event.seat, True))
    if isinstance(event, PlayerTimedOut):
        timed_out = state.timed_out or (False,) * state.players
        state = replace(state, timed_out=_with(timed_out, event.seat, True))
    if isinstance(event, PlayerResigned | PlayerTimedOut):
        if state.turn == event.seat:
            state = replace(state, turn=state.next_active(event.seat))
        return state
    if isinstance(event, GameWon):
        return replace(
            state, status=Status.WON, winner=event.seat, line=event.line, end_reason=event.reason
        )
    if isinstance(event, GameTied):
        return replace(state, status=Status.TIED, end_reason=event.reason)
    if isinstance(event, GameCreated):
        n = event.config.players
        return State(
            config=event.config,
            status=Status.IN_PROGRESS,
            turn=event.config.first_seat,
            front=(0,) * n,
            back=(0,) * n,
            blockers=(0,) * n,
            checkers_left=(CHECKERS_PER_PLAYER,) * n,
            blockers_left=(BLOCKERS_PER_PLAYER,) * n,
            resigned=(False,) * n,
            timed_out=(False,) * n,
        )
    raise TypeError(f"not a Connect 4x4 event: {event!r}")


def _with(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*values[:index], value, *values[index + 1 :])


# --- questions ----------------------------------------------------------------------------


def is_terminal(state: State) -> bool:
    return state.over


DROPS: Final[tuple[tuple[Move, ...], ...]] = tuple(
    (
        *(DropChecker(seat, column, side) for column in range(COLUMNS) for side in SIDES),
        *(DropBlocker(seat, column) for column in range(COLUMNS)),
    )
    for seat in range(MAX_PLAYERS)
)
"""Every drop each seat may ever make, in ``legal_moves``' order: each column's checker on
either side, then each column's blocker (made once: moves are values)."""


def legal_drops(state: State) -> list[int]:
    """The drops the seat on turn may make, as places in its ``DROPS``."""
    if state.status is not Status.IN_PROGRESS:
        return []
    seat = state.turn
    drops: list[int] = []
    if state.checkers_left[seat]:
        for column in range(COLUMNS):
            for i, side in enumerate(SIDES):
                if state.height(column, side) < ROWS:
                    drops.append(column * len(SIDES) + i)
    if state.blockers_left[seat]:
        blockers = COLUMNS * len(SIDES)
        for column in range(COLUMNS):
            if state.blocker_row(column) < ROWS:
                drops.append(blockers + column)
    return drops


def legal_moves(state: State) -> list[Move]:
    """Every drop the seat on turn may make (resigning is always possible too)."""
    drops = legal_drops(state)
    if not drops:
        return []
    mine = DROPS[state.turn]
    return [mine[i] for i in drops]


@dataclass(frozen=True, slots=True)
class Ending:
    """How a game ended: ``winner`` is None for a tie."""

    winner: int | None
    reason: str
    line: tuple[Position, ...] = ()

    @property
    def tie(self) -> bool:
        return self.winner is None


def result(state: State) -> Ending | None:
    """How the game ended, or None while it goes on."""
    if state.status is Status.WON:
        return Ending(state.winner, state.end_reason or FOUR_IN_A_LINE, state.line)
    if state.status is Status.TIED:
        return Ending(None, state.end_reason or NO_LEGAL_MOVES)
    return None


class Connect4x4Rules:
    """The decider object the conformance kit and the service hold."""

    def initial_state(self) -> State:
        return initial_state()

    def decide(self, state: State, command: Command) -> list[Event]:
        return decide(state, command)

    def evolve(self, state: State, event: Event) -> State:
        return evolve(state, event)

    def is_terminal(self, state: State) -> bool:
        return is_terminal(state)


decider: Final = Connect4x4Rules()
