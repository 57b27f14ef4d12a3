"""A game of simultaneous play as a bot runner plays it (``botrunner``): one seat's bot
(``SeatBot``), the game's bots and phases (``BotGame``), and a ``BotGame`` read from the
game's contract (``ContractBots``: all but the bots and the round)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from parlor.core.game import GameContract
from parlor.gamehost.bots.once import BuiltOnce

S = TypeVar("S")
C = TypeVar("C")
T = TypeVar("T")
C_co = TypeVar("C_co", covariant=True)
S_contra = TypeVar("S_contra", contravariant=True)


class SeatBot(Protocol[C_co]):
    """One bot seat's planner: its next command from the seat's view (None: nothing to do)."""

    def next_command(self, seen: Any) -> C_co | None: ...

    def refused(self) -> None:
        """Its last command was refused: plan afresh."""

    def new_round(self) -> None:
        """A new hand: forget the plan."""

    # A seat bot may also have ``async def think(seen)``: its next command, planned in the
    # bot workers itself (``thinking.think`` of a picklable function); the runner then
    # awaits that instead of running ``next_command`` in the bot thread.


class BotGame(Protocol[S_contra, C_co]):
    """A game of simultaneous play as the runner plays it."""

    async def prepare(self) -> None:
        """Slow set-up the bots need (a word index), done as the runner starts."""

    async def seat_bot(self, level: str) -> SeatBot[C_co]:
        """A new bot of ``level`` for one seat."""

    def view(self, state: S_contra, seat: int) -> Any:
        """What the seat sees: all a bot plans from."""

    def over(self, state: S_contra) -> bool: ...

    def between_rounds(self, state: S_contra) -> bool:
        """Whether the next round is to be started (``start_round``) before anyone acts."""

    def round(self, state: S_contra) -> int: ...

    def left(self, state: S_contra, seat: int) -> bool:
        """Whether the seat has left the game (forfeited, resigned): it plays no more."""

    def leave(self, state: S_contra, seat: int, why: str) -> Any | None:
        """The command by which the seat leaves the game (``why``: ``LEFT`` for a bot at a
        table no person sits at, ``ABANDONED`` for a person idle too long); None: the game
        has none (the runner then only stops playing it)."""

    def mark(self, state: S_contra, seat: int) -> Any:
        """What changes when the seat acts (compared between steps: a person who has not
        acted for ``ABANDON_SECONDS`` while bots play has walked away)."""


class ContractBots(Generic[S, C, T]):
    """A ``BotGame`` read from the game's contract (``parlor.core.game.GameContract``): a seat
    plans from the contract's ``view`` of it, the game is over when ``is_terminal``, and
    between rounds (the next to be started) when no seat is to move (``to_move``).

    The game gives its bots: ``shared()`` builds what every bot plays from (a word index:
    seconds, so built once, off the event loop, as the runner starts), ``seat_bot(shared,
    level)`` makes one seat's, ``round`` numbers the hands (in a new one bots re-plan), and
    ``left`` says which seats have left the game (none, if not given).
    """

    def __init__(
        self,
        engine: GameContract[S, C, Any],
        shared: Callable[[], T],
        seat_bot: Callable[[T, str], SeatBot[C]],
        round: Callable[[S], int],
        left: Callable[[S, int], bool] | None = None,
        leave: Callable[[S, int, str], C | None] | None = None,
        mark: Callable[[S, int], Any] | None = None,
    ) -> None:
        self.engine = engine
        self._shared = BuiltOnce(shared)
        self._seat_bot = seat_bot
        self._round = round
        self._left = left
        self._leave = leave
        self._mark = mark

    async def prepare(self) -> None:
        await self._shared.get()

    async def seat_bot(self, level: str) -> SeatBot[C]:
        return self._seat_bot(await self._shared.get(), level)

    def view(self, state: S, seat: int) -> Any:
        return self.engine.view(state, seat)

    def over(self, state: S) -> bool:
        return self.engine.is_terminal(state)

    def between_rounds(self, state: S) -> bool:
        return not self.engine.to_move(state)

    def round(self, state: S) -> int:
        return self._round(state)

    def left(self, state: S, seat: int) -> bool:
        return self._left is not None and self._left(state, seat)

    def leave(self, state: S, seat: int, why: str) -> C | None:
        return self._leave(state, seat, why) if self._leave is not None else None

    def mark(self, state: S, seat: int) -> Any:
        return self._mark(state, seat) if self._mark is not None else None
