"""Upwords as a decider: commands become events, events fold into the state."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from parlor.core.errors import InvalidArgument, PermissionDenied, RuleViolation
from parlor.core.game import RESIGNED, TIMED_OUT, departed
from parlor.rules.upwords import tiles
from parlor.rules.upwords.config import RULES_VERSION, UpwordsConfig, WordChecking
from parlor.rules.upwords.crossword import validate_play
from parlor.rules.upwords.events import (
    ChallengeFailed,
    Event,
    GameCreated,
    GameEnded,
    Passed,
    PlayAccepted,
    PlayerResigned,
    PlayerTimedOut,
    PlayWithdrawn,
    TileExchanged,
    TilesDrawn,
    WordPlayed,
)
from parlor.rules.upwords.moves import (
    AcceptPlay,
    Challenge,
    Command,
    CreateGame,
    Exchange,
    Pass,
    Play,
    Resign,
    TimeOut,
)
from parlor.rules.upwords.start import deal, draw_for_first
from parlor.rules.upwords.state import PendingPlay, Phase, UpwordsState

PENALTY_PER_TILE = 5
MIN_PLAYERS, MAX_PLAYERS = 2, 4


@dataclass(frozen=True)
class GameResult:
    reason: str
    final_scores: tuple[int, ...]
    winners: tuple[int, ...]


def _without(rack: Sequence[str], used: Sequence[str]) -> tuple[str, ...]:
    """The rack after taking out one copy of each used tile."""
    left = list(rack)
    for tile in used:
        left.remove(tile)
    return tuple(left)


def _set(values: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    return (*values[:index], value, *values[index + 1 :])


def _set_rack(
    racks: tuple[tuple[str, ...], ...], index: int, rack: tuple[str, ...]
) -> tuple[tuple[str, ...], ...]:
    return (*racks[:index], rack, *racks[index + 1 :])


def _checked_config(config: object) -> UpwordsConfig:
    """The config as the game records it, its word checking a ``WordChecking`` member.

    The rules branch on ``word_checking is WordChecking.AUTO``: a plain "auto" (or any
    unknown word) left as it came would play neither mode (no verdicts asked, no
    refill, no challenge window), so it is read here or refused (``BAD_CONFIG``).
    """
    if not isinstance(config, UpwordsConfig):
        raise InvalidArgument("CreateGame needs an UpwordsConfig", reason="BAD_CONFIG")
    try:
        checking = WordChecking(config.word_checking)
    except (ValueError, TypeError):
        raise InvalidArgument(
            f"word checking is auto or challenge, got {config.word_checking!r}",
            reason="BAD_CONFIG",
        ) from None
    if not isinstance(config.plural_rule, bool):
        raise InvalidArgument("plural_rule must be true or false", reason="BAD_CONFIG")
    if not isinstance(config.lexicon, str):
        raise InvalidArgument("lexicon must name a word list", reason="BAD_CONFIG")
    if not isinstance(config.rules, int) or not 1 <= config.rules <= RULES_VERSION:
        raise InvalidArgument(
            f"rules must be a version from 1 to {RULES_VERSION}", reason="BAD_CONFIG"
        )
    return replace(config, word_checking=checking)


def _check_verdicts(words: Sequence[str], verdicts: Mapping[str, bool]) -> tuple[str, ...]:
    """The words the dictionary refused; every word must have a verdict."""
    missing = sorted({w for w in words if w not in verdicts})
    if missing:
        raise InvalidArgument(
            "verdicts are missing for: " + ", ".join(missing), reason="MISSING_VERDICTS"
        )
    return tuple(dict.fromkeys(w for w in words if not verdicts[w]))


class UpwordsDecider:
    """The one Upwords decider (``UPWORDS``); see the package docstring for the flow."""

    def initial_state(self) -> UpwordsState:
        return UpwordsState()

    def is_terminal(self, state: UpwordsState) -> bool:
        return state.phase is Phase.ENDED

    def result(self, state: UpwordsState) -> GameResult | None:
        if state.phase is not Phase.ENDED:
            return None
        return GameResult(state.end_reason, state.scores, state.winners)

    # -- decide -------------------------------------------------------------

    def decide(self, state: UpwordsState, command: Command) -> list[Event]:
        if isinstance(command, CreateGame):
            return self._create(state, command)
        if state.phase is not Phase.PLAYING:
            raise RuleViolation("GAME_NOT_IN_PROGRESS", "the game is not in progress")
        seat = getattr(command, "seat", None)
        if isinstance(seat, int) and 0 <= seat < state.players and state.has_resigned(seat):
            raise RuleViolation(
                "SEAT_RESIGNED", f"seat {seat} resigned and is out", metadata=departed(RESIGNED)
            )
        if isinstance(seat, int) and 0 <= seat < state.players and state.is_out(seat):
            raise RuleViolation(
                "SEAT_TIMED_OUT",
                f"seat {seat} ran out of time and is out",
                metadata=departed(TIMED_OUT),
            )
        if isinstance(command, TimeOut):
            return self._time_out(state, command.seat)
        if isinstance(command, Play):
            return self._play(state, command)
        if isinstance(command, Challenge):
            return self._challenge(state, command)
        if isinstance(command, Resign):
            return self._resign(state, command.seat)
        if not isinstance(command, AcceptPlay | Pass | Exchange):
            raise InvalidArgument(
                f"unknown command {type(command).__name__}", reason="UNKNOWN_COMMAND"
            )
        self._turn(state, command.seat)
        if isinstance(command, AcceptPlay):
            if state.pending is None:
                raise RuleViolation("NOTHING_TO_ACCEPT", "there is no play awaiting challenge")
            return self._close_window(state)
        if state.pending_is_final():
            raise RuleViolation("CHALLENGE_WINDOW_OPEN", "accept or challenge the last play first")
        if isinstance(command, Pass):
            events = self._close_window(state)
            events.append(Passed(command.seat))
            if state.passes + 1 >= state.active:
                after = self._fold(state, events)
                events.append(self._ending(after, "ALL_PASSED"))
            return events
        return self._exchange(state, command)

    def _seat(self, state: UpwordsState, seat: int) -> None:
        if not 0 <= seat < state.players:
            raise InvalidArgument(f"no seat {seat}", reason="NO_SUCH_SEAT")

    def _turn(self, state: UpwordsState, seat: int) -> None:
        self._seat(state, seat)
        if seat != state.to_move:
            raise PermissionDenied("it is not your turn", reason="NOT_YOUR_TURN")

    def _fold(self, state: UpwordsState, events: Sequence[Event]) -> UpwordsState:
        for event in events:
            state = self.evolve(state, event)
        return state

    def _create(self, state: UpwordsState, command: CreateGame) -> list[Event]:
        if state.phase is not Phase.NOT_STARTED:
            raise RuleViolation("GAME_ALREADY_CREATED", "the game has already been created")
        players = len(command.seats)
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise InvalidArgument(
                f"Upwords is for {MIN_PLAYERS} to {MAX_PLAYERS} players", reason="BAD_SEATS"
            )
        config = _checked_config(command.config)
        for order in (command.first_draw_order, command.bag_order):
            if not tiles.is_full_bag(order):
                raise InvalidArgument("a bag order must hold all 100 tiles", reason="BAD_BAG")
        rounds, first = draw_for_first(players, command.first_draw_order)
        racks, bag = deal(players, command.bag_order)
        return [
            GameCreated(
                config=config,
                seats=tuple(command.seats),
                first_draw=rounds,
                first_seat=first,
                racks=racks,
                bag=bag,
                bag_count=len(bag),
            )
        ]

    def _close_window(self, state: UpwordsState) -> list[Event]:
        """Let the pending play stand: its player refills, and the game may end."""
        pending = state.pending
        if pending is None:
            return []
        events: list[Event] = [PlayAccepted(pending.seat)]
        events.extend(self._refill(state, pending.seat))
        return events

    def _refill(self, state: UpwordsState, seat: int) -> list[Event]:
        """Draw back up to 7; end the game if the player is out of tiles and the bag is empty."""
        need = tiles.RACK_SIZE - len(state.racks[seat])
        drawn = state.bag[:need]
        events: list[Event] = [TilesDrawn(seat, len(drawn), drawn)] if drawn else []
        if not state.racks[seat] and not drawn:
            events.append(self._ending(state, "OUT_OF_TILES"))
        return events

    def _play(self, state: UpwordsState, command: Play) -> list[Event]:
        check = validate_play(state, command.seat, command.placements)
        if state.config.word_checking is WordChecking.AUTO:
            invalid = _check_verdicts(check.texts, command.verdicts)
            if invalid:
                raise RuleViolation(
                    "INVALID_WORDS",
                    "not in the lexicon: " + ", ".join(invalid),
                    metadata={"words": ",".join(invalid)},
                )
        events = self._close_window(state)
        played = WordPlayed(
            command.seat, tuple(command.placements), check.texts, check.score, check.bonus
        )
        events.append(played)
        if state.config.word_checking is WordChecking.AUTO:
            events.extend(self._refill(self._fold(state, events), command.seat))
        return events

    def _exchange(self, state: UpwordsState, command: Exchange) -> list[Event]:
        if state.retry:
            raise RuleViolation(
                "EXCHANGE_AFTER_WITHDRAWN", "after a withdrawn play you may play again or pass"
            )
        events = self._close_window(state)
        after = self._fold(state, events)
        if not after.bag:
            raise RuleViolation("EXCHANGE_BAG_EMPTY", "no exchange when the bag is empty")
        if command.tile not in after.racks[command.seat]:
            raise RuleViolation("TILES_NOT_ON_RACK", "that tile is not on your rack")
        if not 0 <= command.position < len(after.bag):
            raise InvalidArgument(
                f"position must be in 0..{len(after.bag) - 1}", reason="BAD_POSITION"
            )
        events.append(TileExchanged(command.seat, command.tile, after.bag[0], command.position))
        return events

    def _challenge(self, state: UpwordsState, command: Challenge) -> list[Event]:
        self._seat(state, command.seat)
        pending = state.pending
        if pending is None:
            raise RuleViolation("NOTHING_TO_CHALLENGE", "there is no play to challenge")
        if command.seat == pending.seat:
            raise PermissionDenied("you may not challenge your own play", reason="OWN_PLAY")
        invalid = _check_verdicts(pending.words, command.verdicts)
        if invalid:
            events: list[Event] = [
                PlayWithdrawn(
                    command.seat, pending.seat, invalid, pending.placements, pending.score
                )
            ]
            if state.is_out(pending.seat):
                # Its player resigned since (rules 2): the turn stays where it is, and the
                # passes before the play count again, as if it had never been made.
                after = self._fold(state, events)
                if after.passes >= after.active:
                    events.append(self._ending(after, "ALL_PASSED"))
            return events
        return [ChallengeFailed(command.seat, pending.seat), *self._close_window(state)]

    def _resign(self, state: UpwordsState, seat: int) -> list[Event]:
        """Rules 2: with others still playing, the seat drops out as one that ran out of time
        does (docs/rules/upwords.md, "Other turns"); the last one left wins. Rules 1, or one
        opponent left: the game ends for everyone, with no rack penalties."""
        self._seat(state, seat)
        if state.config.rules < 2 or state.active <= 2:
            return [PlayerResigned(seat), self._ending(state, "RESIGNED", resigned=seat)]
        events: list[Event] = [PlayerResigned(seat)]
        after = self._fold(state, events)
        if after.passes >= after.active:
            events.append(self._ending(after, "ALL_PASSED"))
        return events

    def _time_out(self, state: UpwordsState, seat: int) -> list[Event]:
        """The seat drops out (docs/rules/upwords.md, "Time"); one seat left wins."""
        self._seat(state, seat)
        events: list[Event] = [PlayerTimedOut(seat)]
        after = self._fold(state, events)
        if after.active <= 1:
            events.append(self._ending(after, "TIMEOUT"))
        elif after.passes >= after.active:
            events.append(self._ending(after, "ALL_PASSED"))
        return events

    def _ending(self, state: UpwordsState, reason: str, resigned: int | None = None) -> GameEnded:
        """Final scores: -5 per tile left (not on resignation); ties share the win."""
        racks = state.racks
        if resigned is None:
            penalties = tuple(PENALTY_PER_TILE * len(rack) for rack in racks)
        else:
            penalties = (0,) * len(racks)
        final = tuple(s - p for s, p in zip(state.scores, penalties, strict=True))
        eligible = [s for s in range(len(final)) if s != resigned and not state.is_out(s)]
        best = max(final[s] for s in eligible)
        winners = tuple(s for s in eligible if final[s] == best)
        return GameEnded(reason, racks, penalties, final, winners)

    # -- evolve -------------------------------------------------------------

    def evolve(self, state: UpwordsState, event: Event) -> UpwordsState:
        if isinstance(event, GameCreated):
            if event.racks is None or event.bag is None or None in event.racks:
                raise ValueError("cannot evolve a public (stripped) GameCreated")
            return UpwordsState(
                phase=Phase.PLAYING,
                config=event.config,
                seats=event.seats,
                racks=tuple(r for r in event.racks if r is not None),
                bag=event.bag,
                scores=(0,) * len(event.seats),
                to_move=event.first_seat,
            )
        if isinstance(event, WordPlayed):
            used = [p.tile for p in event.placements]
            pending = None
            number = state.plays + 1
            if state.config.word_checking is WordChecking.CHALLENGE:
                pending = PendingPlay(
                    event.seat, event.placements, event.words, event.score, state.passes, number
                )
            return replace(
                state,
                board=state.board.placed((p.row, p.col, p.tile) for p in event.placements),
                racks=_set_rack(state.racks, event.seat, _without(state.racks[event.seat], used)),
                scores=_set(state.scores, event.seat, state.scores[event.seat] + event.score),
                to_move=state.next_seat(event.seat),
                passes=0,
                pending=pending,
                retry=False,
                plays=number,
            )
        if isinstance(event, TilesDrawn):
            if event.drawn is None:
                raise ValueError("cannot evolve a public (stripped) TilesDrawn")
            return replace(
                state,
                racks=_set_rack(state.racks, event.seat, state.racks[event.seat] + event.drawn),
                bag=state.bag[event.count :],
            )
        if isinstance(event, Passed):
            return replace(
                state, passes=state.passes + 1, to_move=state.next_seat(event.seat), retry=False
            )
        if isinstance(event, TileExchanged):
            if event.returned is None or event.drawn is None or event.position is None:
                raise ValueError("cannot evolve a public (stripped) TileExchanged")
            rest = state.bag[1:]
            rack = (*_without(state.racks[event.seat], [event.returned]), event.drawn)
            return replace(
                state,
                racks=_set_rack(state.racks, event.seat, rack),
                bag=(*rest[: event.position], event.returned, *rest[event.position :]),
                to_move=state.next_seat(event.seat),
                passes=0,
                retry=False,
            )
        if isinstance(event, PlayAccepted):
            return replace(state, pending=None)
        if isinstance(event, PlayerResigned):
            if state.config.rules < 2 or state.phase is not Phase.PLAYING:
                return state  # rules 1: a GameEnded follows at once
            return _dropped_out(state, event.seat, resigned=True)
        if isinstance(event, ChallengeFailed):
            return state
        if isinstance(event, PlayerTimedOut):
            return _dropped_out(state, event.seat, resigned=False)
        if isinstance(event, PlayWithdrawn):
            pending = state.pending
            passes = pending.passes_before if pending is not None else state.passes
            returned = tuple(p.tile for p in event.placements)
            # The player plays again, unless it has dropped out since (resigned, rules 2):
            # then the game must not wait on it, and the turn stays where it is.
            gone = state.is_out(event.seat)
            return replace(
                state,
                board=state.board.lifted((p.row, p.col) for p in event.placements),
                racks=_set_rack(state.racks, event.seat, state.racks[event.seat] + returned),
                scores=_set(state.scores, event.seat, state.scores[event.seat] - event.score),
                to_move=state.to_move if gone else event.seat,
                passes=passes,
                pending=None,
                retry=state.retry if gone else True,
            )
        if isinstance(event, GameEnded):
            return replace(
                state,
                phase=Phase.ENDED,
                scores=event.final_scores,
                end_reason=event.reason,
                winners=event.winners,
                pending=None,
            )
        raise TypeError(f"unknown event {type(event).__name__}")


UPWORDS = UpwordsDecider()


def _dropped_out(state: UpwordsState, seat: int, *, resigned: bool) -> UpwordsState:
    """The seat is out (resigned, or ran out of time); play moves on if it was its turn."""
    if resigned:
        state = replace(state, resigned=_marked(state.resigned, seat, state.players))
    else:
        state = replace(state, out=_marked(state.out, seat, state.players))
    if state.to_move == seat:
        state = replace(state, to_move=state.next_seat(seat), retry=False)
    return state


def _marked(marks: tuple[bool, ...], seat: int, players: int) -> tuple[bool, ...]:
    listed = list(marks or (False,) * players)
    listed[seat] = True
    return tuple(listed)


def exchange_positions(state: UpwordsState) -> int:
    """How many insert positions an exchange now has (the service picks one at random)."""
    if state.phase is not Phase.PLAYING:
        return 0
    after = UPWORDS._fold(state, UPWORDS._close_window(state))
    return len(after.bag)


def insert_position(state: UpwordsState, rng: random.Random) -> int:
    """Where a returned tile goes into the bag: uniformly at random among the
    ``exchange_positions`` (``rng``: the service's, a secure one)."""
    positions = exchange_positions(state)
    return rng.randrange(positions) if positions > 0 else 0


def check_meant_play(state: UpwordsState, meant_for: int) -> None:
    """A challenge or an accept meant for another play than the one awaiting challenge is
    refused: a caller names the play it saw (``PendingPlay.number``), and in a game of three
    or four the next seat may have played (closing that play's window) before it arrived;
    0 names none, and nothing is checked."""
    pending = state.pending
    if not meant_for or (pending is not None and pending.number == meant_for):
        return
    now = f"play {pending.number} awaits challenge" if pending else "no play awaits challenge"
    raise RuleViolation(
        "PLAY_CHANGED",
        f"this was meant for play {meant_for}, and {now}: look at the game again",
        metadata={"play": str(pending.number if pending else 0), "meant_for": str(meant_for)},
    )


def pending_words(state: UpwordsState) -> tuple[str, ...]:
    """The words a challenger's verdicts must cover (challenge mode)."""
    return state.pending.words if state.pending is not None else ()


def tile_counts(state: UpwordsState) -> Counter[str]:
    """Every tile in the game by letter (always the full 100: an invariant)."""
    counts: Counter[str] = Counter(state.bag)
    for rack in state.racks:
        counts.update(rack)
    for stack in state.board.stacks:
        counts.update(stack)
    return counts
