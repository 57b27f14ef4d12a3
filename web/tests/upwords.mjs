// Upwords in the browser: a play refused with the rule's reason, then a valid one accepted;
// a spectator's page shows it live without a reload, and every byte that page received is
// reported so the test can check that no rack ever reached it.
import { BASE, main, newPage, report, screenshot, signIn, wordFor } from "./browser.mjs";

// Everything a page receives from the bridge: JSON answers whole, event streams as they come.
async function record(page) {
  const chunks = [];
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  const streams = new Set();
  cdp.on("Network.responseReceived", async ({ requestId, response }) => {
    if (!response.url.includes("/api/")) return;
    if (response.mimeType === "text/event-stream") {
      streams.add(requestId);
      const { bufferedData } = await cdp.send("Network.streamResourceContent", { requestId });
      chunks.push(Buffer.from(bufferedData, "base64").toString("utf8"));
    }
  });
  cdp.on("Network.dataReceived", ({ requestId, data }) => {
    if (streams.has(requestId) && data) chunks.push(Buffer.from(data, "base64").toString("utf8"));
  });
  page.on("response", async (response) => {
    if (!response.url().includes("/api/")) return;
    if ((response.headers()["content-type"] ?? "").startsWith("text/event-stream")) return;
    chunks.push(`\n${await response.text().catch(() => "")}\n`);
  });
  return chunks;
}

async function place(page, word, row, col) {
  for (let i = 0; i < word.length; i++) {
    await page.click(`#rack .tile[data-tile="${word[i].toUpperCase()}"]:not(.used):not([disabled])`);
    await page.click(`[data-square="${row},${col + i}"]`);
  }
}

await main(async (browser) => {
  const page = await newPage(browser);
  const mine = await record(page);
  await signIn(page, "Ada");
  let gameId = "";
  let word = "";
  for (let attempt = 0; attempt < 10 && !word; attempt++) {
    await page.goto(BASE + "/#/");
    await page.waitForSelector("#vs-bots");
    await page.selectOption("#bot-game", "upwords");
    await page.selectOption("#bot-level", "bot:random");
    await page.click("#start-bot-game");
    await page.waitForURL(/#\/play\/upwords\//);
    await page.waitForSelector("#rack .tile");
    gameId = decodeURIComponent(page.url().split("/").pop());
    // an empty board with Ada to move: her play is the first one and must cover the centre
    const first = (await page.locator(".uw[data-turn=mine]").count()) === 1 && (await page.locator('[data-height]:not([data-height="0"])').count()) === 0;
    if (!first) continue;
    word = await wordFor(page, await page.locator("#rack .tile").evaluateAll((els) => els.map((e) => e.dataset.tile)));
  }
  if (!word) throw new Error("no game where Ada plays first with a word on her rack");

  // The spectator opens the game before Ada plays.
  const watcherPage = await newPage(browser);
  const seen = await record(watcherPage);
  await signIn(watcherPage, "Bob");
  await watcherPage.goto(`${BASE}/#/play/upwords/${gameId}`);
  await watcherPage.waitForSelector("#uw-board");
  await watcherPage.waitForSelector(".spectating");
  const watcherRack = await watcherPage.locator("#rack").count();

  // Off the centre: refused, with the rule's reason on the page; nothing is played.
  await place(page, word, 0, 0);
  await page.click("#uw-play");
  await page.waitForSelector("#notice.error");
  const refusal = await page.textContent("#notice");
  await screenshot(page, "upwords-refused");
  const versionAfterRefusal = await page.getAttribute("#main", "data-version");

  await page.click("#uw-clear");
  await place(page, word, 4, 4);
  await page.click("#uw-play");
  await page.waitForFunction((v) => Number(document.querySelector("#main")?.dataset.version) > Number(v), versionAfterRefusal);
  const notice = await page.textContent("#notice");
  const rackAfter = await page.locator("#rack .tile").evaluateAll((els) => els.map((e) => e.dataset.tile));
  await screenshot(page, "upwords");

  // The spectator sees Ada's word appear, live: its page reaches the version of her play
  // (the bot may already have played on top of it; the test compares the board as of then).
  await watcherPage.waitForFunction((v) => Number(document.querySelector("#main")?.dataset.version) > v, Number(versionAfterRefusal));
  const reloads = await watcherPage.evaluate(() => performance.getEntriesByType("navigation").length);
  // the spectator's board and the version it is of, read at one moment (the bot plays on)
  const [watcherVersion, watcherBoard] = await watcherPage.evaluate(() => [
    Number(document.querySelector("#main").dataset.version),
    [...document.querySelectorAll("[data-square]")].map((e) => e.querySelector(".face").textContent),
  ]);
  await screenshot(watcherPage, "upwords-spectator");
  const token = await page.evaluate(() => JSON.parse(localStorage.getItem("parlor.session")).token);
  await new Promise((r) => setTimeout(r, 500));
  report({
    gameId,
    word,
    refusal,
    versionAfterRefusal: Number(versionAfterRefusal),
    notice,
    rackAfter,
    watcherRack,
    watcherBoard,
    watcherVersion,
    reloads,
    token,
    spectatorReceived: seen.join(""),
    playerReceived: mine.join(""),
  });
});
