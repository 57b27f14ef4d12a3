"""Take Four as a decider: commands in, events out, and the fold that applies them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from parlor.core.errors import InvalidArgument, RuleViolation
from parlor.core.game import FORFEITED, departed
from parlor.rules.takefour.commands import (
    AgreeToDeal,
    CallDone,
    CallTakeFour,
    CreateGame,
    Forfeit,
    MarkIdle,
    MoveTile,
    PlaceTile,
    StartRound,
    SwapJoker,
    TakeBackTile,
    TakeFourCommand,
    Verdicts,
    WithdrawAgreement,
)
from parlor.rules.takefour.crossword import (
    Cell,
    WordCheck,
    checkable,
    crossword_problems,
    run_words,
    sub_run_words,
)
from parlor.rules.takefour.events import (
    AgreementWithdrawn,
    DealAgreed,
    DealKind,
    DoneCalled,
    GameCreated,
    GameEnded,
    JokerSwapped,
    RoundScored,
    RoundStarted,
    SeatForfeited,
    SeatIdle,
    TakeFourCalled,
    TakeFourEvent,
    TileMoved,
    TilePlaced,
    TilesDealt,
    TileTakenBack,
)
from parlor.rules.takefour.scoring import GridScore, score_player
from parlor.rules.takefour.state import (
    COORDINATE_LIMIT,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Phase,
    Placement,
    Player,
    RoundResult,
    TakeFourState,
)
from parlor.rules.takefour.tiles import JOKER, LETTERS, TileSet
from parlor.rules.takefour.view import TakeFourView, Viewer, view

TIMEOUT = "TIMEOUT"
"""The ``Forfeit`` reason of a seat that ran out of time (any other: it left)."""
NO_SUCH_SEAT = "NO_SUCH_SEAT"
"""The reason a command naming a seat the table does not have is refused with."""


def check_round(state: TakeFourState, meant_for: int) -> None:
    """A command meant for another round than the game's is refused (it was written for
    that one: a caller names the round it last saw; 0 names none, and nothing is checked).
    A game that is over is left to refuse the command as over (``GAME_OVER``): that, not the
    round, is what the caller needs to hear."""
    if meant_for and meant_for != state.round and state.phase is not Phase.OVER:
        raise RuleViolation(
            "ROUND_CHANGED",
            f"this command was meant for round {meant_for}, and the game is in round"
            f" {state.round}: look at the game again",
            metadata={"round": str(state.round), "meant_for": str(meant_for)},
        )


@dataclass(frozen=True)
class GameResult:
    """Final totals and the seats sharing the lowest one."""

    totals: tuple[int, ...]
    winners: tuple[int, ...]


class TakeFourRules:
    """The Take Four decider; use the module-level ``TAKE_FOUR``."""

    def initial_state(self) -> TakeFourState:
        return TakeFourState()

    def is_terminal(self, state: TakeFourState) -> bool:
        return state.phase is Phase.OVER

    def decide(self, state: TakeFourState, command: TakeFourCommand) -> Sequence[TakeFourEvent]:
        match command:
            case CreateGame():
                return _create(state, command)
            case StartRound():
                return _start_round(state, command)
            case PlaceTile():
                return _place(state, command)
            case MoveTile():
                return _move(state, command)
            case TakeBackTile():
                return _take_back(state, command)
            case SwapJoker():
                return _swap_joker(state, command)
            case CallTakeFour():
                return _call_take_four(state, command)
            case AgreeToDeal():
                return _agree(state, command)
            case WithdrawAgreement():
                return _withdraw(state, command)
            case CallDone():
                return _call_done(state, command)
            case MarkIdle():
                return _mark_idle(state, command)
            case Forfeit():
                return _forfeit(state, command)
        raise InvalidArgument(f"unknown command {type(command).__name__}", reason="UNKNOWN_COMMAND")

    def evolve(self, state: TakeFourState, event: TakeFourEvent) -> TakeFourState:
        after = self._evolve(state, event)
        if isinstance(event, ACTIONS) and after.players[event.seat].idle:
            p = after.players[event.seat]  # the seat acted: it is no longer idle
            after = after.with_player(event.seat, replace(p, idle=False))
        return after

    def _evolve(self, state: TakeFourState, event: TakeFourEvent) -> TakeFourState:
        match event:
            case GameCreated(config=config, seats=seats):
                players = tuple(Player() for _ in seats)
                return replace(
                    state, phase=Phase.BETWEEN_ROUNDS, config=config, seats=seats, players=players
                )
            case RoundStarted(round=number, bag=bag):
                players = tuple(
                    Player(total=p.total, idle=p.idle, forfeited=p.forfeited, timed_out=p.timed_out)
                    for p in state.players
                )
                return replace(
                    state, phase=Phase.PLAYING, round=number, bag=bag, unused=(), players=players
                )
            case TilesDealt(hands=hands, unused=unused):
                taken = sum(len(h) for h in hands) + len(unused)
                players = tuple(
                    replace(p, hand=tuple(sorted(p.hand + new)), agrees_to_deal=False)
                    for p, new in zip(state.players, hands, strict=True)
                )
                return replace(
                    state, bag=state.bag[taken:], unused=state.unused + unused, players=players
                )
            case TilePlaced(seat=seat, tile=tile, x=x, y=y, letter=letter):
                p = state.players[seat]
                grid = {**p.grid, (x, y): Placement(tile, letter)}
                return state.with_player(seat, replace(p, hand=_without(p.hand, tile), grid=grid))
            case TileMoved(seat=seat, from_x=fx, from_y=fy, to_x=tx, to_y=ty, letter=letter):
                p = state.players[seat]
                grid = dict(p.grid)
                moved = grid.pop((fx, fy))
                grid[(tx, ty)] = Placement(moved.tile, letter)
                return state.with_player(seat, replace(p, grid=grid))
            case TileTakenBack(seat=seat, x=x, y=y, tile=tile):
                p = state.players[seat]
                grid = dict(p.grid)
                del grid[(x, y)]
                hand = tuple(sorted((*p.hand, tile)))
                return state.with_player(seat, replace(p, hand=hand, grid=grid))
            case JokerSwapped(seat=seat, x=x, y=y, tile=tile, joker=joker):
                p = state.players[seat]
                grid = {**p.grid, (x, y): Placement(tile, p.grid[(x, y)].letter)}
                hand = tuple(sorted((*_without(p.hand, tile), joker)))
                return state.with_player(seat, replace(p, hand=hand, grid=grid))
            case TakeFourCalled(seat=seat):
                p = state.players[seat]
                return state.with_player(seat, replace(p, calls=p.calls + 1))
            case DoneCalled():
                return state
            case DealAgreed(seat=seat):
                p = state.players[seat]
                return state.with_player(seat, replace(p, agrees_to_deal=True))
            case AgreementWithdrawn(seat=seat):
                p = state.players[seat]
                return state.with_player(seat, replace(p, agrees_to_deal=False))
            case RoundScored(round=number, done_seat=done, scores=scores, totals=totals):
                players = tuple(
                    replace(p, total=t, agrees_to_deal=False)
                    for p, t in zip(state.players, totals, strict=True)
                )
                result = RoundResult(round=number, done_seat=done, scores=scores)
                return replace(
                    state,
                    phase=Phase.BETWEEN_ROUNDS,
                    players=players,
                    results=(*state.results, result),
                )
            case GameEnded(winners=winners):
                return replace(state, phase=Phase.OVER, winners=tuple(winners))
            case SeatIdle(seat=seat):
                return state.with_player(seat, replace(state.players[seat], idle=True))
            case SeatForfeited(seat=seat, reason=reason):
                p = state.players[seat]
                timed_out = reason == TIMEOUT
                return state.with_player(
                    seat, replace(p, forfeited=True, idle=False, timed_out=timed_out)
                )
        raise InvalidArgument(f"unknown event {type(event).__name__}")

    def result(self, state: TakeFourState) -> GameResult | None:
        """The outcome once the game is over: the winners its ``GameEnded`` named (the lowest
        total among the seats still racing; ties share the win)."""
        if state.phase is not Phase.OVER:
            return None
        return GameResult(totals=state.totals, winners=state.winners)

    def legal_moves(self, state: TakeFourState, seat: int) -> list[TakeFourCommand]:
        """A finite sample of the seat's legal commands (see the module function)."""
        return legal_moves(state, seat)

    def view(self, state: TakeFourState, viewer: Viewer) -> TakeFourView:
        """What ``viewer`` (a seat, or None for a spectator) may see."""
        return view(state, viewer)

    def attach_verdicts(
        self, state: TakeFourState, command: TakeFourCommand, verdicts: Mapping[str, bool]
    ) -> TakeFourCommand:
        """The command with the dictionary's ``verdicts`` on its ``words_to_check``."""
        return attach_verdicts(state, command, verdicts.__getitem__)

    def words_to_check(self, state: TakeFourState, command: TakeFourCommand) -> frozenset[str]:
        """The words whose verdicts ``command`` must carry: the service looks them up.

        Runs longer than the dictionary's bound (``MAX_WORD_LENGTH``) are left out: they are
        never words, whatever the verdicts say.
        """
        if state.phase is not Phase.PLAYING:
            return frozenset()
        auto = state.config.checking == "auto"
        if isinstance(command, CallTakeFour) and auto and 0 <= command.seat < len(state.players):
            return frozenset(filter(checkable, run_words(state.players[command.seat].letters())))
        if isinstance(command, CallDone):
            words: set[str] = set()
            for p in state.players:
                words |= sub_run_words(p.letters())
            return frozenset(words)
        return frozenset()


TAKE_FOUR = TakeFourRules()

ACTIONS = (
    TilePlaced,
    TileMoved,
    TileTakenBack,
    JokerSwapped,
    TakeFourCalled,
    DealAgreed,
    AgreementWithdrawn,
    DoneCalled,
)
"""Events a seat's own action makes: each ends its being idle."""


# --- commands -------------------------------------------------------------------------------


def _create(state: TakeFourState, command: CreateGame) -> list[TakeFourEvent]:
    if state.phase is not Phase.NOT_CREATED:
        raise RuleViolation("GAME_ALREADY_CREATED", "this game has already been created")
    command.config.validate()
    if not MIN_PLAYERS <= len(command.seats) <= MAX_PLAYERS:
        raise InvalidArgument(
            f"Take Four needs {MIN_PLAYERS} to {MAX_PLAYERS} players", reason="BAD_SEATS"
        )
    if len(set(command.seats)) != len(command.seats) or not all(command.seats):
        raise InvalidArgument("seats must be distinct, non-empty player ids", reason="BAD_SEATS")
    if command.config.rules >= 2 and command.config.tiles.size < len(command.seats):
        raise InvalidArgument(
            "the tile set must hold at least one tile per player", reason="TILE_SET_TOO_SMALL"
        )
    return [GameCreated(config=command.config, seats=tuple(command.seats))]


def _start_round(state: TakeFourState, command: StartRound) -> list[TakeFourEvent]:
    if state.phase is Phase.NOT_CREATED:
        raise RuleViolation("GAME_NOT_CREATED", "the game has not been created")
    if state.phase is Phase.OVER:
        raise RuleViolation("GAME_OVER", "the game is over")
    if state.phase is Phase.PLAYING:
        raise RuleViolation("ROUND_IN_PROGRESS", "a round is already being played")
    order = tuple(command.bag_order)
    if sorted(order) != list(range(state.config.tiles.size)):
        raise InvalidArgument(
            "bag_order must list every tile id of the set exactly once", reason="BAD_BAG"
        )
    started = RoundStarted(round=state.round + 1, bag=order)
    dealt = _deal(replace(state, bag=order, round=state.round + 1), "start")
    return [started, dealt]


def _deal(state: TakeFourState, kind: DealKind) -> TilesDealt:
    """Deal from the front of the bag, seat by seat; short of a full deal, an equal share.

    Rules 2: tiles too few to give every player one more are left unused by the deal that
    leaves them (the bag then counts as empty), so no deal ever gives 0 tiles each.
    """
    n, size, bag = len(state.players), state.config.deal_size, state.bag
    share = min(size, len(bag) // n)
    hands = tuple(bag[i * share : (i + 1) * share] for i in range(n))
    rest = bag[share * n :]
    if share == size and (state.config.rules < 2 or len(rest) >= n):
        return TilesDealt(state.round, kind, hands, (), len(rest))
    return TilesDealt(state.round, "last" if share < size else kind, hands, rest, 0)


def _player(state: TakeFourState, seat: int) -> Player:
    """The seat's player during a round being played."""
    if state.phase is Phase.OVER:
        raise RuleViolation("GAME_OVER", "the game is over")
    if state.phase is not Phase.PLAYING:
        raise RuleViolation("ROUND_NOT_IN_PLAY", "no round is being played")
    if not 0 <= seat < len(state.players):
        raise InvalidArgument(f"no seat {seat} in this game", reason=NO_SUCH_SEAT)
    _check_racing(state, seat)
    return state.players[seat]


def _check_racing(state: TakeFourState, seat: int) -> None:
    """Refuse a seat that forfeited (``FORFEITED``), saying why: on time, or it left (the
    ErrorInfo metadata ``departure``: ``FORFEITED`` or ``LEFT``)."""
    p = state.players[seat]
    if p.forfeited:
        why = "ran out of time and forfeited" if p.departure == FORFEITED else "left"
        raise RuleViolation(
            "FORFEITED", f"seat {seat} {why}: it is out of the game", metadata=departed(p.departure)
        )


def _cell(x: int, y: int) -> Cell:
    if not (abs(x) <= COORDINATE_LIMIT and abs(y) <= COORDINATE_LIMIT):
        raise InvalidArgument(
            f"grid coordinates must lie within -{COORDINATE_LIMIT}..{COORDINATE_LIMIT}",
            reason="COORDINATE_OUT_OF_RANGE",
        )
    return (x, y)


def _joker_letter(letter: str | None) -> str:
    if letter is None or len(letter) != 1 or letter not in LETTERS:
        raise InvalidArgument("a joker needs a letter A-Z", reason="JOKER_LETTER_REQUIRED")
    return letter


def _place(state: TakeFourState, command: PlaceTile) -> list[TakeFourEvent]:
    p = _player(state, command.seat)
    cell = _cell(command.x, command.y)
    if command.tile not in p.hand:
        raise RuleViolation("TILE_NOT_IN_HAND", "that tile is not in your hand")
    if cell in p.grid:
        raise RuleViolation("CELL_OCCUPIED", "that cell already holds a tile")
    face = state.config.tiles.face(command.tile)
    if face == JOKER:
        letter = _joker_letter(command.letter)
    elif command.letter not in (None, face):
        raise InvalidArgument(f"that tile is {face}, not {command.letter}", reason="WRONG_LETTER")
    else:
        letter = face
    return [TilePlaced(command.seat, command.tile, cell[0], cell[1], letter)]


def _move(state: TakeFourState, command: MoveTile) -> list[TakeFourEvent]:
    p = _player(state, command.seat)
    source = _cell(command.from_x, command.from_y)
    target = _cell(command.to_x, command.to_y)
    if source not in p.grid:
        raise RuleViolation("CELL_EMPTY", "there is no tile to move there")
    if target in p.grid and target != source:
        raise RuleViolation("CELL_OCCUPIED", "that cell already holds a tile")
    placed = p.grid[source]
    letter = placed.letter
    if command.letter is not None:
        if state.config.tiles.face(placed.tile) == JOKER:
            letter = _joker_letter(command.letter)
        elif command.letter != placed.letter:
            raise InvalidArgument("only a joker can change its letter", reason="WRONG_LETTER")
    if target == source and letter == placed.letter:
        raise InvalidArgument("the move changes nothing", reason="NO_CHANGE")
    return [TileMoved(command.seat, source[0], source[1], target[0], target[1], letter)]


def _take_back(state: TakeFourState, command: TakeBackTile) -> list[TakeFourEvent]:
    p = _player(state, command.seat)
    cell = _cell(command.x, command.y)
    if cell not in p.grid:
        raise RuleViolation("CELL_EMPTY", "there is no tile to take back there")
    return [TileTakenBack(command.seat, cell[0], cell[1], p.grid[cell].tile)]


def _swap_joker(state: TakeFourState, command: SwapJoker) -> list[TakeFourEvent]:
    p = _player(state, command.seat)
    cell = _cell(command.x, command.y)
    tiles = state.config.tiles
    placed = p.grid.get(cell)
    if placed is None or tiles.face(placed.tile) != JOKER:
        raise RuleViolation("NOT_A_JOKER", "there is no joker on that cell")
    if command.tile not in p.hand:
        raise RuleViolation("TILE_NOT_IN_HAND", "that tile is not in your hand")
    if tiles.face(command.tile) != placed.letter:
        raise RuleViolation("LETTER_MISMATCH", f"the joker stands for {placed.letter}")
    return [JokerSwapped(command.seat, cell[0], cell[1], command.tile, placed.tile)]


def _all_placed(p: Player) -> None:
    if p.hand:
        raise RuleViolation("HAND_NOT_EMPTY", "place all your tiles first")
    if not p.grid:
        raise RuleViolation("GRID_EMPTY", "your grid is empty")


def _done_unchecked(state: TakeFourState) -> bool:
    """Rules 2, honor mode: a Done call stands as made, tiles in hand or not (scoring judges)."""
    return state.config.rules >= 2 and state.config.checking == "honor"


def _judge(verdicts: Verdicts) -> WordCheck:
    """The lexicon's verdicts as a word check: a word too long to look up is not a word."""
    return lambda word: checkable(word) and verdicts[word]


def _require_verdicts(words: frozenset[str], verdicts: Verdicts) -> None:
    missing = sum(1 for w in words if w not in verdicts)
    if missing:
        raise InvalidArgument(
            f"lexicon verdicts are missing for {missing} word(s)", reason="MISSING_VERDICTS"
        )


def _refuse_invalid(state: TakeFourState, seat: int, verdicts: Verdicts) -> None:
    """``auto`` mode refuses a call on an invalid crossword, naming only the caller's words."""
    if state.config.checking != "auto":
        return
    problems = crossword_problems(state.players[seat].letters(), _judge(verdicts))
    if problems:
        message = "your crossword is not valid: " + "; ".join(problems)
        raise RuleViolation("INVALID_CROSSWORD", message)


def _call_take_four(state: TakeFourState, command: CallTakeFour) -> list[TakeFourEvent]:
    p = _player(state, command.seat)
    if state.bag_empty:
        raise RuleViolation("BAG_EMPTY", "the bag is empty: call Done instead")
    _all_placed(p)
    _require_verdicts(TAKE_FOUR.words_to_check(state, command), command.verdicts)
    _refuse_invalid(state, command.seat, command.verdicts)
    return [TakeFourCalled(command.seat), _deal(state, "take_four")]


def _agree(state: TakeFourState, command: AgreeToDeal) -> list[TakeFourEvent]:
    p = _player(state, command.seat)
    if state.bag_empty:
        raise RuleViolation("BAG_EMPTY", "the bag is empty: there is nothing left to deal")
    if p.agrees_to_deal:
        raise RuleViolation("ALREADY_AGREED", "you have already agreed to deal")
    events: list[TakeFourEvent] = [DealAgreed(command.seat)]
    others = (q.agrees for i, q in enumerate(state.players) if i != command.seat)
    if all(others):
        events.append(_deal(state, "stalemate"))
    return events


def _withdraw(state: TakeFourState, command: WithdrawAgreement) -> list[TakeFourEvent]:
    p = _player(state, command.seat)
    if not p.agrees_to_deal:
        raise RuleViolation("NOT_AGREED", "you have not agreed to deal")
    return [AgreementWithdrawn(command.seat)]


def _call_done(state: TakeFourState, command: CallDone) -> list[TakeFourEvent]:
    p = _player(state, command.seat)
    if not state.bag_empty:
        raise RuleViolation("BAG_NOT_EMPTY", "Done is called only once the bag is empty")
    if not _done_unchecked(state):
        _all_placed(p)
    words = TAKE_FOUR.words_to_check(state, command)
    _require_verdicts(words, command.verdicts)
    _refuse_invalid(state, command.seat, command.verdicts)

    is_word = _judge(command.verdicts)
    tiles = state.config.tiles
    graded = [
        _forfeited_score(q, tiles)
        if q.forfeited
        else score_player(q, tiles, is_word, called_done=seat == command.seat)
        for seat, q in enumerate(state.players)
    ]
    scores = tuple(g.score for g in graded)
    totals = tuple(p.total + s for p, s in zip(state.players, scores, strict=True))
    accepted = tuple(sorted(filter(is_word, words)))
    events: list[TakeFourEvent] = [
        DoneCalled(command.seat, accepted, len(p.hand)),
        RoundScored(
            round=state.round,
            done_seat=command.seat,
            done_valid=graded[command.seat].valid,
            scores=scores,
            totals=totals,
            removed=tuple(g.removed for g in graded),
        ),
    ]
    limit = state.config.max_rounds
    reached = any(totals[seat] >= state.config.target for seat in state.contenders)
    if reached or (limit is not None and state.round >= limit):
        events.append(GameEnded(totals=totals, winners=_winners(state, totals)))
    return events


def _forfeited_score(p: Player, tiles: TileSet) -> GridScore:
    """A seat that forfeited scores every tile it holds as unplaced (not doubled)."""
    lost = sum(tiles.value(q.tile) for q in p.grid.values()) + sum(tiles.value(t) for t in p.hand)
    return GridScore(score=lost, removed=(), valid=False)


def _stalemate_deal(state: TakeFourState) -> list[TakeFourEvent]:
    """The stalemate deal, once idle and forfeited seats complete the agreement of the rest
    (someone present must have agreed: idle seats alone deal nothing)."""
    if state.phase is not Phase.PLAYING or state.bag_empty:
        return []
    if not all(p.agrees for p in state.players):
        return []
    if not any(p.agrees_to_deal and not p.idle and not p.forfeited for p in state.players):
        return []
    return [_deal(state, "stalemate")]


def _mark_idle(state: TakeFourState, command: MarkIdle) -> list[TakeFourEvent]:
    p = _player(state, command.seat)
    if p.idle:
        raise RuleViolation("ALREADY_IDLE", f"seat {command.seat} is already idle")
    events: list[TakeFourEvent] = [SeatIdle(command.seat)]
    return events + _stalemate_deal(TAKE_FOUR.evolve(state, events[0]))


def _forfeit(state: TakeFourState, command: Forfeit) -> list[TakeFourEvent]:
    """The seat leaves the race; with one seat left racing, that seat wins the game."""
    if state.phase is Phase.NOT_CREATED:
        raise RuleViolation("GAME_NOT_CREATED", "the game has not been created")
    if state.phase is Phase.OVER:
        raise RuleViolation("GAME_OVER", "the game is over")
    if not 0 <= command.seat < len(state.players):
        raise InvalidArgument(f"no seat {command.seat} in this game", reason=NO_SUCH_SEAT)
    _check_racing(state, command.seat)
    event = SeatForfeited(command.seat, command.reason)
    after = TAKE_FOUR.evolve(state, event)
    racing = tuple(seat for seat, p in enumerate(after.players) if not p.forfeited)
    if len(racing) <= 1:
        return [event, GameEnded(totals=after.totals, winners=racing)]
    return [event, *_stalemate_deal(after)]


def _winners(state: TakeFourState, totals: tuple[int, ...]) -> tuple[int, ...]:
    """The contenders sharing the lowest total: under rules 3 a seat that forfeited ranks
    behind every seat still racing, whatever its total (``standings`` ranks them so); rules
    1 and 2 took the lowest total of every seat (their games replay so)."""
    racing = state.contenders
    if not racing:
        return ()
    low = min(totals[seat] for seat in racing)
    return tuple(seat for seat in racing if totals[seat] == low)


def _without(hand: tuple[int, ...], tile: int) -> tuple[int, ...]:
    i = hand.index(tile)
    return hand[:i] + hand[i + 1 :]


def attach_verdicts(
    state: TakeFourState, command: TakeFourCommand, is_word: Callable[[str], bool]
) -> TakeFourCommand:
    """The command with the verdicts it needs filled in from a lexicon (the service's step)."""
    words = TAKE_FOUR.words_to_check(state, command)
    if isinstance(command, CallTakeFour | CallDone):
        return replace(command, verdicts={w: is_word(w) for w in sorted(words)})
    return command


def legal_moves(state: TakeFourState, seat: int) -> list[TakeFourCommand]:
    """A finite sample of the seat's legal commands: every call and take-back, placements
    beside the grid (jokers as every letter) and moves of grid tiles to those cells.

    The grid is unbounded, so the full set is not listed; any command passing ``decide`` is legal.
    """
    if state.phase is not Phase.PLAYING or not 0 <= seat < len(state.players):
        return []
    p = state.players[seat]
    if p.forfeited:
        return []  # out of the game: every command of its is refused (FORFEITED)
    tiles = state.config.tiles
    free = sorted(
        {
            (x + dx, y + dy)
            for x, y in p.grid
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if (x + dx, y + dy) not in p.grid
        }
        or {(0, 0)}
    )
    moves: list[TakeFourCommand] = []
    for tile in p.hand:
        letters = LETTERS if tiles.is_joker(tile) else tiles.face(tile)
        moves.extend(PlaceTile(seat, tile, x, y, letter) for x, y in free for letter in letters)
    for (x, y), placed in sorted(p.grid.items()):
        moves.append(TakeBackTile(seat, x, y))
        moves.extend(MoveTile(seat, x, y, tx, ty) for tx, ty in free if (tx, ty) != (x, y))
        if tiles.is_joker(placed.tile):
            moves.extend(SwapJoker(seat, t, x, y) for t in p.hand if tiles.face(t) == placed.letter)
    if not state.bag_empty:
        if not p.hand and p.grid:
            moves.append(CallTakeFour(seat))
        moves.append(WithdrawAgreement(seat) if p.agrees_to_deal else AgreeToDeal(seat))
    elif (not p.hand and p.grid) or _done_unchecked(state):
        moves.append(CallDone(seat))
    return moves
