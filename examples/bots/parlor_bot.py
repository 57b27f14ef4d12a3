"""A starter bot for Parlor on ``parlor-client`` (docs/bots.md): one stream, no polling.

    PARLOR_BOT_SECRET=botacct-... python examples/bots/parlor_bot.py --target localhost:50051

It exchanges its secret for a bot token, declares what it accepts, then follows its inbox
(``WatchPlayer``): it accepts every challenge that reaches it (the platform declines for it
those it did not declare), and on each "your turn" reads the game as its seat sees it
(``GetGame``) and plays a legal move. It keeps its last position in a file, so a restart
(its own or the platform's) resumes where it stopped: nothing missed, nothing repeated.
Connect 4x4 lists the legal moves in ``Game.legal_moves``; this bot plays one at random.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from parlor.bots.v1 import bots_pb2, bots_pb2_grpc
from parlor.challenges.v1 import challenges_pb2 as ch
from parlor.challenges.v1 import challenges_pb2_grpc as ch_grpc
from parlor.client import Cancelled, ParlorClient, ParlorError, Unauthenticated, Unavailable

log = logging.getLogger("parlor_bot")
GONE = (Unavailable, Cancelled, Unauthenticated)
"""The platform went away (a restart: UNAVAILABLE, or CANCELLED as a stopping server ends
its streams) or the token ended: reconnect, and handle again the notices of the message
being handled (their position was not kept; a move's command id makes it once)."""
GAME_TYPES = ("connect4x4",)
"""The games whose views list their legal moves (Game.legal_moves)."""


async def play(
    target: str,
    secret: str,
    position: int = 0,
    saved: Callable[[int], object] = lambda position: None,
    max_games: int = 4,
    seek: int = 0,
) -> None:
    """Play until cancelled; ``position``: where the inbox was left (0: from the start);
    ``seek``: how many games to ask the matchmaker for against other bots (SeekBot)."""
    wanted = [seek]  # still to seek, across reconnects
    kept = [position]  # the last position handled, across reconnects (never 0 again)
    while True:
        seeking: asyncio.Task[None] | None = None
        try:
            async with ParlorClient(target) as parlor:
                bots = bots_pb2_grpc.BotServiceStub(parlor.channel)
                issued = await parlor.call(
                    bots.ExchangeBotSecret, bots_pb2.ExchangeBotSecretRequest(secret=secret)
                )
                parlor.token = issued.access_token
                # matchmaking: people and bots asking the matchmaker for a bot may get it;
                # declaring again also makes it available after a timeout marked it not
                accepts = bots_pb2.Accepts(
                    game_types=GAME_TYPES, max_games=max_games, matchmaking=True
                )
                await parlor.call(
                    bots.DeclareAccepts, bots_pb2.DeclareAcceptsRequest(accepts=accepts)
                )
                seeking = asyncio.create_task(seek_games(parlor, bots, wanted))
                await follow(parlor, kept, saved)
        except GONE as exc:  # a restart, or the token's end
            log.info("reconnecting after %s", exc)
            await asyncio.sleep(1.0)
        finally:
            if seeking is not None:
                seeking.cancel()


async def seek_games(parlor: ParlorClient, bots: Any, wanted: list[int]) -> None:
    """Ask the matchmaker for ``wanted[0]`` games against bots, one at a time; when no bot
    is free (NO_BOT_AVAILABLE) or the owner's budget is spent (BOT_GAMES_BUDGET), wait."""
    while wanted[0] > 0:
        game_type = GAME_TYPES[wanted[0] % len(GAME_TYPES)]
        try:
            made = await parlor.call(bots.SeekBot, bots_pb2.SeekBotRequest(game_type=game_type))
        except ParlorError as exc:
            log.info("no game from the matchmaker yet: %s", exc)
            await asyncio.sleep(float(exc.metadata.get("retry_after_seconds", 2)))
            continue
        wanted[0] -= 1
        log.info("matched with %s: %s game %s", made.bot.handle, game_type, made.challenge.match_id)


async def follow(parlor: ParlorClient, kept: list[int], saved: Callable[[int], object]) -> None:
    """Follow the inbox from ``kept[0]`` until the stream ends, keeping in ``kept[0]`` the
    position of each message as soon as it is handled: a reconnect, however the stream
    ended, resumes from there (from where this stream started, it would resume from 0 the
    first time, which means "from now" and skips the turns noted meanwhile)."""
    inbox = ch_grpc.ChallengeServiceStub(parlor.channel)
    async for message in parlor.stream(inbox.WatchPlayer, ch.WatchPlayerRequest(after=kept[0])):
        for challenge in message.current:
            await accept(parlor, inbox, challenge)
        for notice in message.notices:
            if notice.kind == ch.NOTICE_KIND_CHALLENGE_ISSUED:
                await accept(parlor, inbox, notice.challenge)
            elif notice.kind == ch.NOTICE_KIND_YOUR_TURN:
                await move(parlor, notice)
        kept[0] = message.position
        saved(kept[0])


async def accept(parlor: ParlorClient, inbox: Any, challenge: Any) -> None:
    if challenge.status != ch.CHALLENGE_STATUS_PENDING:
        return
    request = ch.AcceptChallengeRequest(challenge_id=challenge.challenge_id)
    try:
        await parlor.call(inbox.AcceptChallenge, request, idempotent=True)
    except GONE:
        raise  # not answered: handled again after the reconnect (its position not kept)
    except ParlorError:
        pass  # withdrawn, expired or taken meanwhile


async def move(parlor: ParlorClient, notice: Any) -> None:
    if notice.game_type not in GAME_TYPES:
        return
    api = parlor.game(notice.game_type)
    game = await api.get_game(notice.game_id)
    if game.version != notice.game_version or not game.legal_moves:
        return  # the game moved on: its next "your turn" follows
    try:
        await api.command(
            "PlayMove",
            game_id=notice.game_id,
            move=random.choice(list(game.legal_moves)),
            command_id=f"{notice.game_id}-{game.version}",
        )
    except GONE:
        raise  # not answered: played again after the reconnect (the same command id)
    except ParlorError:
        pass  # refused: a clock ran out, or the move was made already


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default=os.environ.get("PARLOR_TARGET", "localhost:50051"))
    parser.add_argument("--position-file", type=Path, default=Path(".parlor-bot-position"))
    parser.add_argument("--max-games", type=int, default=4)
    parser.add_argument("--seek", type=int, default=0, help="games to ask for against bots")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)
    secret = os.environ["PARLOR_BOT_SECRET"]
    file: Path = args.position_file
    start = int(file.read_text()) if file.exists() else 0
    asyncio.run(
        play(
            args.target, secret, start, lambda p: file.write_text(str(p)), args.max_games, args.seek
        )
    )


if __name__ == "__main__":
    main()
