// A guest plays a whole Connect 4x4 game against a bot by clicking, then replays it: the
// slider at move N, a step back, a move of the list, and the export (the game's notation).
import { readFileSync } from "node:fs";
import { BASE, main, newPage, report, screenshot, signIn } from "./browser.mjs";

await main(async (browser) => {
  const page = await newPage(browser);
  await signIn(page, "Ada");
  await page.selectOption("#bot-game", "connect4x4");
  await page.selectOption("#bot-level", process.env.PARLOR_BOT ?? "bot:random");
  await page.click("#start-bot-game");
  await page.waitForURL(/#\/play\/connect4x4\//);
  const gameId = decodeURIComponent(page.url().split("/").pop());
  const main = page.locator("#main");
  const moves = [];
  for (let turn = 0, played = 0; turn < 60; turn++) {
    await page.waitForFunction(
      () => document.querySelector("#main")?.dataset.finished === "true" || document.querySelector(".c4[data-turn=mine] button.column.legal"),
    );
    if ((await main.getAttribute("data-finished")) === "true") break;
    // The legal columns in one read, and the one chosen clicked by its move: the page draws its
    // board again whenever it learns something (a stream frame, a name, the connection), so a
    // count, then the n-th button, then its move, then a click were four looks at what could be
    // four pictures (none legal in one of them: nth(NaN), a 30 s wait).
    const legal = await page.locator(".c4[data-turn=mine] button.column.legal").evaluateAll((els) => els.map((e) => e.dataset.move));
    if (!legal.length) continue; // drawn again (offline a moment, say) between the two reads: look again
    const move = legal[(played * 3) % legal.length];
    const before = Number(await main.getAttribute("data-version"));
    if (played === 3) await screenshot(page, "connect4x4-playing");
    await page.click(`.c4[data-turn=mine] button.column.legal[data-move="${move}"]`);
    played++;
    await page.waitForFunction((v) => Number(document.querySelector("#main")?.dataset.version) > v, before);
    moves.push(move);
  }
  // The log is the stream's: wait until it has caught up with the game the last reply showed.
  await page.waitForFunction(() => {
    const d = document.querySelector("#main")?.dataset;
    return Number(d?.streamed) >= Number(d?.version);
  });
  const status = await page.textContent("#status");
  const lineCells = await page.locator(".cell.line").count();
  const log = await page.locator("#log li").allTextContents();
  await screenshot(page, "connect4x4");

  // Replay: the slider to move N shows the game after its N-th move (the move list's numbering).
  await page.click("#replay-link");
  await page.waitForURL(/#\/replay\/connect4x4\//);
  await page.waitForSelector("#main[data-loaded=true]");
  const positions = Number(await page.getAttribute("#replay-slider", "max")) + 1;
  const n = Number(process.env.PARLOR_REPLAY_AT ?? 6);
  await page.locator("#replay-slider").fill(String(n));
  const atN = {
    version: Number(await main.getAttribute("data-version")),
    checkers: await page.locator(".cell.checker").count(),
    counter: await page.textContent("#replay-counter"),
    note: await page.textContent("#replay-notation"),
    current: await page.locator('#replay-moves li[aria-current="step"]').allTextContents(),
    valuetext: await page.getAttribute("#replay-slider", "aria-valuetext"),
  };
  await screenshot(page, "connect4x4-replay");
  await page.click("#replay-prev");
  const back = Number(await main.getAttribute("data-version"));
  await page.click('#replay-moves button[data-position="1"]');
  const first = { position: Number(await main.getAttribute("data-position")), checkers: await page.locator(".cell.checker").count() };
  await page.click("#replay-first");
  const start = { position: Number(await main.getAttribute("data-position")), checkers: await page.locator(".cell.checker").count(), note: await page.textContent("#replay-notation") };
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export")]);
  const exported = readFileSync(await download.path(), "utf8").trim().split("\n");
  report({ gameId, moves, status, lineCells, log, positions, atN, back, first, start, exported, file: download.suggestedFilename(), base: BASE });
});
