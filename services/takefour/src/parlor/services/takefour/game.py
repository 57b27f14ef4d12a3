"""Take Four, declared once and served: the one place that says what this game is to the
platform.

Its rules are in ``parlor.rules.takefour`` (every rule, in words: docs/rules/takefour.md),
under the game contract (``contract.ENGINE``: the name, the seat range), with what the
platform asks of them beyond it: the standings ``GameFinished`` carries, the idle clocks
(``timing``), how replay tools rebuild commands (``replay``) and the deal of each round, the
game's chance step (``contract.chance``), which the platform draws for. This module adds, in
order:

- the events and views between the engine's dataclasses and protobuf (``MESSAGES``). Every
  event whose engine dataclass has ``Secret`` fields carries them in a nested ``secret``
  message; showing a viewer their share goes through the engine's ``public_event``
  (``seen_pb``), and so does what NATS gets (``public``: the event as a spectator sees it
  during play, a joker swap shown as a move; hands, grids and bags are never published);
- the declaration (``GAME``: the codec, the bots, the proto, the time controls), registered
  under ``parlor.game_types`` (pyproject.toml). The bots are played by the game host's
  runner (``parlor.gamehost.drivers.botrunner``), which reads the rest from the contract: a bot of
  each level plans with its search budget (the rules' ``bot.LEVELS``) on the bots' own word
  index, from its seat's view, and waits its level's pace per step while a person plays
  (``BOT_PACE_SECONDS``, e.g. easy 8 s a tile, so a person typing ``place A 0,0`` keeps up;
  ``TakeFourSettings``). Bots act through the same path as players;
- the wire (``WIRE``): the ``Game`` and ``GameEvent`` pictures (each event as the engine's
  ``public_event`` lets a viewer see it) and the move RPCs, each refused if it names another
  round (the rules' ``check_round``), from which the game host builds its servicer
  (``SERVING``, with its queue and bot runner; its component registered under
  ``parlor.services``), a word game's: given the dictionary client, every command carries
  the verdicts on the words it needs (the game's ``words``), on the very state it is decided
  on. Its export is the rules' notation with the platform's seats and finish (``export``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from google.protobuf.message import Message

from parlor.common.v1 import common_pb2
from parlor.gamehost.bots.pooledseat import PooledSeat
from parlor.gamehost.drivers.botrunner import (
    ABANDON_HELP,
    ABANDON_SECONDS,
    ALONE_HELP,
    ALONE_SECONDS,
    HUMAN_PACE_HELP,
    IDLE_HELP,
    PAUSE_HELP,
    ContractBots,
    service_runner,
)
from parlor.gamehost.pipeline.games import GameType
from parlor.gamehost.table.codec import Bodies, play_fields, seat_pb
from parlor.gamehost.table.seating import TABLE_EVENTS, Table, TableEvent
from parlor.gamehost.wire.export import export_parts
from parlor.gamehost.wire.messages import DEFAULT, Custom, Messages
from parlor.gamehost.wire.messages import Wire as WireField
from parlor.gamehost.wire.service import GameService
from parlor.gamehost.wire.wire import Move, Wire
from parlor.gamehost.wiring.component import Served
from parlor.gamehost.wiring.serving import Serving
from parlor.gamehost.words.botwords import built_index
from parlor.gamehost.words.words import DictionarySettings
from parlor.gametypes.seats import Seat
from parlor.gametypes.timecontrol import TimeControl
from parlor.kit.settings import load, setting
from parlor.rules import takefour as tf
from parlor.rules.takefour import WordIndex, hosting, notation, replay
from parlor.rules.takefour.bot import LEVELS, BotSeat, TakeFourBot, budget, mark, seat_bot
from parlor.rules.takefour.contract import ENGINE, chance
from parlor.rules.takefour.standings import standings as standings  # the component's too
from parlor.rules.takefour.tiles import STANDARD_TILES
from parlor.rules.takefour.tiles import named_letter as _letter
from parlor.rules.takefour.timing import Timing
from parlor.rules.takefour.view import GridChanged, SeatView, SeenEvent, Viewer
from parlor.runtime.queue import PER_GAME_HELP, GameQueue
from parlor.takefour.v1 import takefour_pb2 as pb

Event = tf.TakeFourEvent | TableEvent
GAME_TYPE = "takefour"


# --- config -------------------------------------------------------------------------------


def tiles_of(message: pb.TileSet) -> tf.TileSet:
    """The tiles of a config; none (no letters, no jokers) means the standard set."""
    if not message.letters and not message.jokers:
        return STANDARD_TILES
    return MESSAGES.value(message, tf.TileSet)


def config_of(
    message: pb.Config, lexicon: str | None = None, *, recorded: bool = False
) -> tf.TakeFourConfig:
    """A config from a request or (``recorded``) an event; zero values mean the defaults.

    A stored game's rules version 0 is ``tf.RECORDED_BEFORE_VERSIONS``; a request's 0 is the
    current one, and a new game is played by no other (``tf.rules_for_new_game``).
    """
    config = _config_of(message)
    if not recorded:
        config = replace(config, rules=tf.rules_for_new_game(message.rules_version))
    return config if lexicon is None else replace(config, lexicon=lexicon)


# --- events, whole (what the store keeps) ---------------------------------------------------

BODIES = Bodies(pb.GameEvent, "Take Four")
MESSAGES: Messages[Event] = Messages(
    BODIES,
    tf.TakeFourEvent,
    GAME_TYPE,
    unspecified={tf.Phase.NOT_CREATED},  # a game not created has no phase yet
    fields={
        (tf.TakeFourConfig, "tiles"): Custom(
            lambda c: tiles_pb(c.tiles), lambda m: tiles_of(m.tiles)
        ),
        (tf.TakeFourConfig, "target"): WireField(zero=DEFAULT),
        (tf.TakeFourConfig, "deal_size"): WireField(zero=DEFAULT),
        (tf.TakeFourConfig, "rules"): WireField("rules_version", zero=tf.RECORDED_BEFORE_VERSIONS),
        (tf.RoundStarted, "bag_size"): Custom(lambda e: len(e.bag)),
        (tf.TilesDealt, "counts"): Custom(lambda e: e.counts),
        (tf.TilesDealt, "unused_count"): Custom(lambda e: len(e.unused)),
        **{(tf.TakeFourView, n): None for n in ("viewer", "seats")},
        **{(SeatView, n): None for n in ("seat", "player_id", "hand", "grid")},
    },
)
event_pb, event_of = MESSAGES.event_pb, MESSAGES.event_of
"""The protobuf message an event is stored as (secrets included), and back."""
tiles_pb: Callable[[tf.TileSet], pb.TileSet] = MESSAGES.writer(tf.TileSet, pb.TileSet)
config_pb = MESSAGES.writer(tf.TakeFourConfig, pb.Config)
_config_of = MESSAGES.reader(pb.Config, tf.TakeFourConfig)
Codec = MESSAGES.codec
"""``Codec()``: the ``EventCodec`` of Take Four games."""
_TYPES = BODIES.types


# --- events as one viewer sees them ---------------------------------------------------------


def seen_pb(event: Event, viewer: Viewer, reveal: bool) -> tuple[Message, int]:
    """The message ``viewer`` may see of ``event`` (through the engine's ``public_event``):
    the event's own message, of the event whole or of the shape shown with its secrets out
    (a viewer's own share of them in the ``secret`` message, in its seat's place)."""
    unchanged = pb.GRID_CHANGE_UNSPECIFIED
    if isinstance(event, TABLE_EVENTS):
        return event_pb(event), unchanged
    seen: SeenEvent = tf.public_event(event, viewer, reveal=reveal)
    if seen is event:  # nothing of it is hidden from this viewer
        return event_pb(event), unchanged
    if isinstance(seen, GridChanged):  # only whose grid changed, and how the counts show
        change = pb.GridChange.Value(f"GRID_CHANGE_{seen.change.upper()}")
        shape: Any = SHAPES[seen.change]  # a message class with a seat field
        return shape(seat=seen.seat), change
    return MESSAGES.message(seen, MESSAGES.event_types[type(event)]), unchanged


SHAPES: dict[str, type[Message]] = {
    "placed": pb.TilePlaced,
    "moved": pb.TileMoved,
    "taken_back": pb.TileTakenBack,
}
"""The message a grid change is shown to others as: that of the change they may see (a joker
swap is shown as a move: ``GridChanged``)."""


public = MESSAGES.published_as(lambda event: seen_pb(event, None, reveal=False)[0])
"""What NATS carries of a stored event (anyone on the bus reads it, as it happens): its type
and payload as a spectator sees them during play (``seen_pb``), no ``secret`` and a joker
swap as a ``TileMoved``, whose type alone would tell that a joker is now in that hand."""


def game_event_pb(
    event: Event, info: common_pb2.EventInfo, viewer: Viewer, reveal: bool
) -> pb.GameEvent:
    """The event as ``viewer`` sees it; ``info.type`` names the message shown (a joker swap
    shown as a move is a ``TileMoved``)."""
    message, change = seen_pb(event, viewer, reveal)
    out: pb.GameEvent = BODIES.shown(message, info, change=cast(Any, change))
    return out


# --- the game as one viewer sees it ---------------------------------------------------------


def game_pb(
    game_id: str,
    version: int,
    table: Table[tf.TakeFourState],
    viewer: Viewer,
    reveal: bool = False,
) -> pb.Game:
    """The game as ``viewer`` sees it; ``reveal`` (a finished game replayed) shows everything."""
    state = table.game
    if state.phase is tf.Phase.NOT_CREATED:
        return pb.Game(game_id=game_id, version=version)
    seen = tf.view(state, viewer, reveal=reveal)
    tiles = state.config.tiles
    return MESSAGES.message(
        seen,
        pb.Game,
        game_id=game_id,
        version=version,
        seats=[_seat_pb(table, s, tiles) for s in seen.seats],
        **play_fields(ENGINE, state, viewer),
        board_text=tf.render(state, viewer, reveal=reveal),
    )


def _seat_pb(table: Table[tf.TakeFourState], s: SeatView, tiles: tf.TileSet) -> pb.SeatView:
    seat = table.seats[s.seat] if s.seat < len(table.seats) else Seat(s.player_id)
    grid = sorted((s.grid or {}).items(), key=lambda kv: (kv[0][1], kv[0][0]))
    return MESSAGES.message(
        s,
        pb.SeatView,
        seat=seat_pb(s.seat, seat),
        visible=s.hand is not None,
        hand=[pb.Tile(id=t, face=tiles.face(t)) for t in s.hand or ()],
        grid=[
            pb.GridTile(x=x, y=y, tile=p.tile, letter=p.letter, joker=tiles.is_joker(p.tile))
            for (x, y), p in grid
        ],
    )


BOT_PACE_SECONDS = {"easy": 8.0, "medium": 5.0, "hard": 3.0}
"""Bot level -> seconds between two of its steps (a tile placed...) while a person plays."""

ENABLE = functools.partial(built_index, WordIndex)
"""The bots' own word index: the packaged ENABLE list (built once per process)."""


@dataclass(frozen=True)
class TakeFourSettings:
    """The service's own settings: its queue (``queue.GameQueue``), its bots' pace
    (``botrunner.PaceSettings``; with a person at the table, ``BOT_PACE_SECONDS``)."""

    queue_per_game: bool = setting("PARLOR_TAKEFOUR_QUEUE_PER_GAME", PER_GAME_HELP, True)
    pause_seconds: float = setting("PARLOR_TAKEFOUR_BOT_PAUSE_SECONDS", PAUSE_HELP, 0.5)
    idle_seconds: float = setting("PARLOR_TAKEFOUR_BOT_IDLE_SECONDS", IDLE_HELP, 1.0)
    human_pace: bool = setting("PARLOR_TAKEFOUR_BOT_HUMAN_PACE", HUMAN_PACE_HELP, True)
    alone_seconds: float = setting("PARLOR_TAKEFOUR_BOT_ALONE_SECONDS", ALONE_HELP, ALONE_SECONDS)
    abandon_seconds: float = setting(
        "PARLOR_TAKEFOUR_BOT_ABANDON_SECONDS", ABANDON_HELP, ABANDON_SECONDS
    )


Bots = ContractBots[tf.TakeFourState, tf.TakeFourCommand, WordIndex | None]


def planned(budget: int, seen: tf.TakeFourView) -> list[tf.TakeFourCommand]:
    """A bot's plan as a bot worker thinks it (``gamehost.thinking``): on the worker's own
    ENABLE index, built there once and never sent; a bot of its own per plan, so nothing a
    worker keeps grows with the games it plans for."""
    return TakeFourBot(ENABLE(), budget).plan(seen)


def _seat_bot(index: WordIndex | None, level: str) -> PooledSeat[tf.TakeFourCommand] | BotSeat:
    """A bot planning in the bot workers (``planned``), or on ``index`` (the rules')."""
    if index is None:
        return PooledSeat(planned, budget(level))
    return seat_bot(index, level)


def bots(words: Callable[[], Iterable[str] | WordIndex] = ENABLE) -> Bots:
    """Take Four's bots as the runner plays them: a bot per seat of its level (the rules'
    ``bot.seat_bot``), all on one word index of ``words`` (``ENABLE``: planned in the bot
    workers, each with an index of its own, so this process builds none; another word list,
    a test's: planned in the bot thread on an index built here); a seat that forfeited
    (left, or out of time) has left the game, and a seat leaves by forfeiting (its bots, once
    no person is left; a person's, once they walked away: ``botrunner``)."""
    return ContractBots(
        ENGINE,
        (lambda: None) if words is ENABLE else (lambda: WordIndex.of(words())),
        _seat_bot,
        lambda s: s.round,
        left=lambda s, seat: s.players[seat].forfeited,
        leave=lambda s, seat, why: tf.Forfeit(seat, why),
        mark=mark,
    )


GAME: GameType[Table[tf.TakeFourState], Any, Event] = GameType(
    ENGINE,
    Codec(),
    standings,
    replay,
    Timing(),
    pb,
    bots=tuple(LEVELS),
    public=public,
    rules_page="docs/rules/takefour.md",
    calls=("dictionary",),
    departures=(pb.SeatForfeited,),
    chance=chance,
    hosting=hosting.GAME,
    words=tf.TAKE_FOUR,  # what each command needs checked: the dictionary's verdicts go in
    simultaneous=True,  # its bots are the runner's (``bots``), never the pipeline's
    config_of=config_of,
    default_time_control=TimeControl.per_move(120),
    time_controls=(
        TimeControl.per_move(60),
        TimeControl.per_move(120),
        TimeControl.correspondence(days=1),
    ),
)
rules = GAME.rules  # the seated rules, as tests and tools fold a stream with


State = Table[tf.TakeFourState]


def engine_seats(seats: tuple[Seat, ...]) -> tuple[str, ...]:
    """The engine's seat names of the table's seats (``hosting.engine_seats``)."""
    return hosting.engine_seats(tuple(s.player_id for s in seats), tuple(s.is_bot for s in seats))


def export(game_id: str, lexicon_id: str, events: Sequence[Event]) -> str:
    """A game in Take Four notation (``parlor.rules.takefour.notation``) with the platform's
    seats and finish in it; ``events`` is the whole stream, in order (as ``ExportGame``'s:
    ``hosting.TakeFour.export``)."""
    return notation.export(game_id, lexicon_id, *export_parts(events))


def _play(build: Callable[[Any, int], tf.TakeFourCommand]) -> Move:
    """A move RPC: ``build(request, seat)``, refused if the request names another round."""
    return Move(
        lambda request, table, seat: build(request, seat),
        lambda request, table: tf.check_round(table.game, request.round),
    )


def _moved(r: pb.MoveTileRequest, seat: int) -> tf.MoveTile:
    f, t = getattr(r, "from"), r.to
    return tf.MoveTile(seat, f.x, f.y, t.x, t.y, _letter(r.letter))


def _game(game_id: str, version: int, table: State, viewer: int | None, all_: bool) -> Message:
    return game_pb(game_id, version, table, viewer, all_)


def _seen_event(
    event: Event, info: common_pb2.EventInfo, viewer: int | None, all_: bool
) -> Message:
    """The codec shows ``viewer`` what the engine's ``public_event`` lets them see."""
    return game_event_pb(event, info, viewer, all_)


WIRE: Wire[State, Event] = Wire(
    _game,
    moves={
        "PlaceTile": _play(lambda r, seat: tf.PlaceTile(seat, r.tile, r.x, r.y, _letter(r.letter))),
        "MoveTile": _play(_moved),
        "TakeBackTile": _play(lambda r, seat: tf.TakeBackTile(seat, r.cell.x, r.cell.y)),
        "SwapJoker": _play(lambda r, seat: tf.SwapJoker(seat, r.tile, r.cell.x, r.cell.y)),
        "CallTakeFour": _play(lambda r, seat: tf.CallTakeFour(seat)),
        "AgreeToDeal": _play(lambda r, seat: tf.AgreeToDeal(seat)),
        "WithdrawAgreement": _play(lambda r, seat: tf.WithdrawAgreement(seat)),
        "CallDone": _play(lambda r, seat: tf.CallDone(seat)),
        # The seat forfeits (as a seat idle past three limits does) and the others play on.
        "Leave": _play(lambda r, seat: tf.Forfeit(seat, "LEFT")),
    },
    seen_event=_seen_event,
    view_cache=False,  # cheap to build, and a test switches its redaction off in a live service
)


def _start(make: Callable[..., GameService[State, Event]], settings: TakeFourSettings) -> Served:
    """The servicer with its queue, and the bot runner that plays its bots (``bots``)."""
    served = make(queue=GameQueue() if settings.queue_per_game else None)
    runner = service_runner(served.pipeline, bots(), settings, paces=BOT_PACE_SECONDS)
    return Served(served, [runner.run], {"bots": runner})


# Its servicer: ``SERVING.servicer(host, dictionary, queue=...)``.
SERVING = Serving(
    GAME,
    WIRE,
    settings=TakeFourSettings,
    start=_start,
    dictionary=lambda: load(DictionarySettings),  # hands, grids stay home
)
