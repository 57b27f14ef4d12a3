"""The web client for everyone, in headless Chromium (the scripts of ``web/tests``, as in
test_browser.py): each game played with the keyboard alone, each board read through
Chromium's accessibility tree (the coordinates and contents of a chosen square, the last move
said by a live region), checked against the services."""

from __future__ import annotations

from typing import Any

import pytest
from test_browser import ROOT, SCREENSHOTS, browser, drops_of, run_script

from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.takefour.v1 import takefour_pb2 as tf
from parlor.takefour.v1 import takefour_pb2_grpc as tf_grpc
from parlor.upwords.v1 import upwords_pb2 as uw
from parlor.upwords.v1 import upwords_pb2_grpc as uw_grpc

pytestmark = [pytest.mark.integration, pytest.mark.slow]

LETTERS = "abcdefg"


async def test_each_game_is_played_with_the_keyboard_alone_and_read_through_the_accessibility_tree(
    start_web: Any,
) -> None:
    browser()
    async with start_web("matchmaking", "dictionary", "connect4x4", "upwords", "takefour") as web:
        report = await run_script("keyboard.mjs", web)
        channel = web.platform.service_channel()
        c4_game = (
            await c4_grpc.Connect4x4ServiceStub(channel).GetGame(
                c4.GetGameRequest(game_id=report["c4"]["gameId"])
            )
        ).game
        c4_history = await c4_grpc.Connect4x4ServiceStub(channel).GetHistory(
            c4.GetHistoryRequest(game_id=report["c4"]["gameId"])
        )
        uw_stub = uw_grpc.UpwordsServiceStub(channel)
        uw_game = (await uw_stub.GetGame(uw.GetGameRequest(game_id=report["uw"]["gameId"]))).game
        uw_history = await uw_stub.GetHistory(uw.GetHistoryRequest(game_id=report["uw"]["gameId"]))
        tf_game = (
            await tf_grpc.TakeFourServiceStub(channel).GetGame(
                tf.GetGameRequest(game_id=report["tf"]["gameId"])
            )
        ).game
        await channel.close()

    # Connect 4x4: the whole game, every move of Ada's the one the keys dropped
    c4r = report["c4"]
    assert c4r["finished"]
    assert c4_game.status in (c4.STATUS_WON, c4.STATUS_TIED)
    mine = drops_of(c4_history, 0)
    assert mine == c4r["moves"]
    assert len(mine) >= 4
    assert c4r["focusKept"], "the focus left the board when the page drew it again"
    assert c4r["tabs"] <= 12, "the board is a few Tabs from the page's top"
    # the accessibility tree: two grids, 84 cells named by coordinates and contents
    assert [g for g in c4r["grids"] if g.startswith(("Front", "Back"))] == [
        "Front side: columns a to g, rows 0 (bottom) to 5",
        "Back side: columns a to g, rows 0 (bottom) to 5",
    ]
    assert len(c4r["cells"]) == 84
    d0 = c4_game.front[3 * 6 + 0]
    who = {s.index: s.display_name for s in c4_game.seats}
    expected = {
        c4.CONTENT_EMPTY: "empty",
        c4.CONTENT_CHECKER: f"{who.get(d0.seat)}'s checker",
        c4.CONTENT_BLOCKER: f"{who.get(d0.seat)}'s blocker",
        c4.CONTENT_DEAD: "dead",
    }[d0.content]
    assert c4r["d0"].startswith(f"d0 front: {expected}"), c4r["d0"]
    # the last move said by the live region, as the move list says it, naming its player
    last = [e for e in c4_history.events if e.notation][-1]
    body = getattr(last, last.WhichOneof("body"))
    assert c4r["liveText"] == c4r["log"][-1]
    assert c4r["liveText"].startswith(f"{who[body.seat]}: {last.notation} (")
    assert c4r["statusLive"] == "polite"
    if c4_game.status == c4.STATUS_WON:
        line = ", ".join(f"{LETTERS[p.column]}{p.row}" for p in c4_game.line)
        assert f"four in a line at {line}" in c4r["status"], c4r["status"]
        assert any("in the winning line" in name for name in c4r["cells"])

    # Upwords, to its natural end: the word typed on the board from 5D across was played, a
    # tile exchanged from the rack, then a pass at each turn until the game ended by its rules
    uwr = report["uw"]
    assert uwr["placed"] == len(uwr["word"])
    assert uwr["focusAfterTyping"] == f"4,{3 + len(uwr['word'])}"
    played = [e for e in uw_history.events if e.WhichOneof("body") == "word_played"]
    assert played[0].word_played.seat == 0
    assert [(p.row, p.col) for p in played[0].word_played.placements] == [
        (4, 3 + i) for i in range(len(uwr["word"]))
    ]
    assert "".join(p.tile for p in played[0].word_played.placements).lower() == uwr["word"]
    letter = played[0].word_played.placements[1].tile
    assert uwr["square"].startswith(f"5E: {letter}, stack of 1"), uwr["square"]
    bodies = [(e.WhichOneof("body"), e) for e in uw_history.events]
    exchanges = [e for kind, e in bodies if kind == "tile_exchanged" and e.tile_exchanged.seat == 0]
    assert len(exchanges) == 1
    passes = [e for kind, e in bodies if kind == "passed" and e.passed.seat == 0]
    assert len(passes) == uwr["passes"] > 0
    assert not any(e.WhichOneof("body") == "player_resigned" for e in uw_history.events)
    assert uw_game.status == uw.STATUS_ENDED
    assert uw_game.end_reason in ("OUT_OF_TILES", "ALL_PASSED"), uw_game.end_reason
    assert uw_game.bag_count == 0
    assert uwr["status"].startswith("Game over"), uwr["status"]
    assert f"Ada: {played[0].notation} {played[0].word_played.score}" in uwr["log"]
    assert "Ada: exchanged a tile" in uwr["log"]
    assert uwr["log"].count("Ada: passed") == uwr["passes"]

    # Take Four, to its natural end (one round, the bag emptied by the first deal): a word
    # typed as jokers, its last tile taken back and typed again, then Done
    tfr = report["tf"]
    x, y = map(int, tfr["at"].split(","))
    assert tfr["hand"] == ["?"] * 4
    assert tfr["typedThen"] == f"{x + 4},{y}"
    assert tfr["cellName"] == f"{x},{y}: joker as W"
    assert tfr["handAfter"] == 1
    assert tf_game.phase == tf.PHASE_OVER
    assert tf_game.round == 1
    assert tf_game.config.max_rounds == 1
    ada = tf_game.seats[0]
    assert ada.seat.player_id == report["playerId"]
    word = sorted((t.x, t.y, t.letter) for t in ada.grid)
    assert word == [(x + i, y, letter) for i, letter in enumerate("WORD")]
    assert [(r.done_seat, r.scores[0]) for r in tf_game.results] == [(0, 0)]  # Done, valid
    assert "Ada: called Done" in tfr["log"]
    assert f"Ada: took back the tile at {x + 3},{y}" in tfr["log"]
    assert tfr["status"].startswith("Game over after round 1"), tfr["status"]
    assert (SCREENSHOTS / "connect4x4-keyboard.png").is_file()


async def test_axe_finds_nothing_serious_on_any_page_or_game_state(start_web: Any) -> None:
    browser()
    services = ("matchmaking", "dictionary", "connect4x4", "upwords", "takefour", "tournament")
    async with start_web(*services) as web:
        report = await run_script("axe.mjs", web)
    results = report["results"]
    games = ("connect4x4", "upwords", "takefour")
    states = ("playing", "spectating", "finished", "replay")
    expected = {"sign-in", "lobby", "lobby, a ticket waiting", "tournaments", "tournament"}
    expected |= {f"{g} {s}" for g in games for s in states}
    expected |= {"connect4x4 waiting", "upwords waiting"}
    assert set(results) == expected
    serious = {
        state: [v for v in found if v["impact"] in ("serious", "critical")]
        for state, found in results.items()
    }
    assert serious == {state: [] for state in results}, serious
    # each game's page shows its rules page (docs/rules), opened under the board
    for game in games:
        page = (ROOT / "docs" / "rules" / f"{game}.md").read_text().splitlines()
        shown = report["rules"][game]
        assert shown["heading"] == page[0].removeprefix("# ")
        sections = [line.removeprefix("## ") for line in page if line.startswith("## ")]
        assert shown["sections"] == sections
        starts = [i for i, line in enumerate(page) if line.startswith("|")]
        assert shown["tables"] == sum(1 for i in starts if i - 1 not in starts)


async def test_each_board_fits_a_phone_with_controls_a_finger_can_use(start_web: Any) -> None:
    browser()
    async with start_web("matchmaking", "dictionary", "connect4x4", "upwords", "takefour") as web:
        report = await run_script("phone.mjs", web)
    for game, seen in report["games"].items():
        for width, at in ((390, seen["at390"]), (360, seen["at360"])):
            # nothing runs off the side of the screen: the board is whole within its width
            assert at["scrollWidth"] <= width, (game, width, at)
            assert at["board"]["right"] <= width, (game, width, at["board"])
            assert at["grids"], game
            assert all(g["right"] <= width for g in at["grids"]), (game, width, at["grids"])
            # every button, list and text field on the page at least 44 px each way
            assert at["small"] == [], (game, width, at["small"])
        # at 390x844 the whole board (its grids) is on the first screen, no scrolling
        assert all(g["bottom"] <= 844 for g in seen["at390"]["grids"]), (game, seen["at390"])
    c4 = report["games"]["connect4x4"]
    # one side at a time, switched: the front, then the back on its button, each whole
    assert len(c4["at390"]["grids"]) == 1
    assert len(c4["back"]["grids"]) == 1
    assert c4["back"]["grids"][0]["right"] <= 390
    assert c4["at360"]["cell"] >= 44  # Connect 4x4's cells are touch targets too
    for name in ("phone-connect4x4", "phone-connect4x4-back", "phone-upwords", "phone-takefour"):
        assert (SCREENSHOTS / f"{name}.png").is_file()


async def test_a_lost_server_is_shown_moves_wait_and_stale_errors_clear_on_return(
    start_web: Any,
) -> None:
    browser()
    async with start_web("matchmaking", "connect4x4") as web:
        report = await run_script("lostserver.mjs", web)
    before, lost, back = report["before"], report["lost"], report["back"]
    assert before["banner"] == ""
    assert before["legal"] > 0
    assert report["clickError"], "the click while the server was away says it failed"
    # lost: the banner (an alert) says so, the status too; nothing can be sent, the board is read
    assert "connection to the server is lost" in lost["banner"]
    assert lost["bannerRole"] == "alert"
    assert lost["status"].startswith("Connection lost")
    assert lost["legal"] == 0
    assert lost["enabled"] == 0
    assert lost["resign"] is True
    assert lost["cells"] == 84
    assert lost["online"] == "false"
    # back: no banner, the stale error gone, moves offered again
    assert back["banner"] == ""
    assert back["notice"] == ""
    assert back["legal"] > 0
    assert back["online"] == "true"
