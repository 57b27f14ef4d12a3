// A dropped connection: the page's watch reconnects by itself and resumes after the last
// version it saw (Last-Event-ID), so moves made meanwhile appear once, in order, no reload.
import { main, newPage, report, signIn } from "./browser.mjs";

await main(async (browser) => {
  const player = await newPage(browser);
  await signIn(player, "Ada");
  await player.selectOption("#bot-game", "connect4x4");
  await player.selectOption("#bot-level", "bot:random");
  await player.click("#start-bot-game");
  await player.waitForURL(/#\/play\/connect4x4\//);
  const url = player.url();

  const watcher = await newPage(browser);
  await signIn(watcher, "Bob");
  await watcher.goto(url.replace(/#.*/, "") + "#" + url.split("#")[1]);
  await watcher.waitForSelector(".c4");
  const watcherVersion = async () => Number(await watcher.getAttribute("#main", "data-version"));

  const play = async () => {
    const button = player.locator(".c4[data-turn=mine] button.column.legal").first();
    await button.waitFor();
    const before = Number(await player.getAttribute("#main", "data-version"));
    await button.click();
    await player.waitForFunction((v) => Number(document.querySelector("#main")?.dataset.version) > v, before);
  };
  await play();
  await watcher.waitForFunction((v) => Number(document.querySelector("#main")?.dataset.version) >= v, Number(await player.getAttribute("#main", "data-version")));

  // the spectator's connection is cut (window.stop() aborts its fetches, as a dropped network
  // does); a move is made; the page reconnects by itself
  const cdp = await watcher.context().newCDPSession(watcher);
  await cdp.send("Network.enable");
  const resumedFrom = [];
  cdp.on("Network.requestWillBeSent", ({ request }) => {
    if (request.url.includes("WatchGame")) resumedFrom.push(request.headers["last-event-id"] ?? request.headers["Last-Event-ID"] ?? "");
  });
  // the version the page had when cut (read after the cut: the bot's reply to the last move
  // may still have been arriving before it)
  await watcher.evaluate(() => window.stop());
  const whileAway = await watcherVersion();
  await play();
  const target = Number(await player.getAttribute("#main", "data-version"));
  await watcher.waitForFunction((v) => Number(document.querySelector("#main")?.dataset.version) >= v, target, { timeout: 30000 });
  // then both pages at the same version (the bot's reply may still be arriving)
  for (let settled = -1; ; ) {
    const now = Number(await player.getAttribute("#main", "data-version"));
    await watcher.waitForFunction((v) => Number(document.querySelector("#main")?.dataset.version) >= v, now);
    if (now === settled) break;
    settled = now;
    await new Promise((r) => setTimeout(r, 300));
  }
  const reloads = await watcher.evaluate(() => performance.getEntriesByType("navigation").length);
  report({
    whileAway,
    target,
    resumedFrom,
    watcherLog: await watcher.locator("#log li").allTextContents(),
    playerLog: await player.locator("#log li").allTextContents(),
    reloads,
  });
});
