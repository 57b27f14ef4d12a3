// Two guests meet in a private lobby by its code, land in the same Connect 4x4 game, and each
// sees the other's move appear live, without a reload.
import { main, newPage, report, screenshot, signIn } from "./browser.mjs";

const gameOf = (page) => decodeURIComponent(page.url().split("/").pop());
const version = async (page) => Number(await page.getAttribute("#main", "data-version"));

await main(async (browser) => {
  const ada = await newPage(browser);
  const bob = await newPage(browser);
  await signIn(ada, "Ada");
  await signIn(bob, "Bob");
  await ada.selectOption("#mm-game", "connect4x4");
  await ada.fill("#mm-min", "2");
  await ada.fill("#mm-max", "2");
  await ada.click("#create-lobby");
  const code = (await ada.waitForSelector("#lobby-code")).textContent();
  const invite = await code;
  await screenshot(ada, "lobby");
  await bob.fill("#join-code", invite);
  await bob.click("#join-lobby button[type=submit]");
  await Promise.all([ada.waitForURL(/#\/play\/connect4x4\//), bob.waitForURL(/#\/play\/connect4x4\//)]);
  await Promise.all([ada.waitForSelector(".c4"), bob.waitForSelector(".c4")]);

  const moves = [];
  for (let i = 0; i < 2; i++) {
    const pages = [ada, bob];
    const mover = (await ada.locator(".c4[data-turn=mine]").count()) ? 0 : 1;
    const [me, other] = [pages[mover], pages[1 - mover]];
    await me.waitForSelector(".c4[data-turn=mine] button.column.legal");
    const before = await version(other);
    const button = me.locator(".c4[data-turn=mine] button.column.legal").nth(i + 2);
    const move = await button.getAttribute("data-move");
    await button.click();
    // the other player's page: the move arrives on its stream
    await other.waitForFunction((v) => Number(document.querySelector("#main")?.dataset.version) > v, before);
    const log = await other.locator("#log li").allTextContents();
    moves.push({ by: mover === 0 ? "Ada" : "Bob", move, seenByOther: log[log.length - 1] });
  }
  const reloads = await Promise.all([ada, bob].map((p) => p.evaluate(() => performance.getEntriesByType("navigation").length)));
  report({ code: invite, games: [gameOf(ada), gameOf(bob)], moves, reloads });
});
