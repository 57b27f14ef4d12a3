// Two guests meet in a private lobby by its code, land in the same Connect 4x4 game, and each
// sees the other's move appear live, without a reload.
import { main, meetInLobby, report, screenshot } from "./browser.mjs";

const gameOf = (page) => decodeURIComponent(page.url().split("/").pop());
const version = async (page) => Number(await page.getAttribute("#main", "data-version"));

await main(async (browser) => {
  const { ada, bob, invite } = await meetInLobby(browser, { afterOpen: (page) => screenshot(page, "lobby") });
  await Promise.all([ada.waitForSelector(".c4"), bob.waitForSelector(".c4")]);

  const moves = [];
  for (let i = 0; i < 2; i++) {
    const pages = [ada, bob];
    // both pages on the same version of the game, then whose turn it is by the page that says so
    await ada.waitForFunction(async (v) => Number(document.querySelector("#main")?.dataset.version) === v, await version(bob)).catch(() => undefined);
    await Promise.all(pages.map((p) => p.waitForFunction(() => { const d = document.querySelector("#main")?.dataset; return Number(d?.streamed) >= Number(d?.version); })));
    const mover = await Promise.any(pages.map((p, k) => p.waitForSelector(".c4[data-turn=mine]").then(() => k)));
    const [me, other] = [pages[mover], pages[1 - mover]];
    await me.waitForSelector(".c4[data-turn=mine] button.column.legal");
    const before = await version(other);
    const button = me.locator(".c4[data-turn=mine] button.column.legal").nth(i + 2);
    const move = await button.getAttribute("data-move");
    await button.click();
    // the other player's page: the move arrives on its stream
    await other.waitForFunction((v) => Number(document.querySelector("#main")?.dataset.version) > v, before);
    const log = await other.locator("#log li").allTextContents();
    // and is said by its live region (the announcer), in the log's words
    const announced = (await other.textContent("#announcer")).trim();
    moves.push({ by: mover === 0 ? "Ada" : "Bob", move, seenByOther: log[log.length - 1], announced });
  }
  const reloads = await Promise.all([ada, bob].map((p) => p.evaluate(() => performance.getEntriesByType("navigation").length)));
  report({ code: invite, games: [gameOf(ada), gameOf(bob)], moves, reloads });
});
