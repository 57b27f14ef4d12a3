// "Next game" (issue 41): Ada holds three Connect 4x4 games against bots, each waiting for her
// first move: one at 2 days per move, one at 5+3, one untimed. With "after my move, go to the
// next game" ticked, a move in the untimed game takes her page to the 5+3 game (the earliest
// deadline); there Alt+N takes her to the 2-day game (the next deadline: the untimed one,
// waiting again once its bot has answered, comes last); its "Next game" button takes her back
// to the 5+3 game.
import { BASE, main, newPage, report, screenshot, signIn } from "./browser.mjs";

const gameOf = (page) => decodeURIComponent(page.url().split("/").pop());

async function startWith(page, clock) {
  await page.goto(BASE + "/#/");
  await page.waitForSelector("#vs-bots");
  await page.selectOption("#bot-game", "connect4x4");
  await page.selectOption("#bot-level", "bot:random");
  await page.selectOption("#bot-time-control", { label: clock });
  await page.click("#start-bot-game");
  await page.waitForURL(/#\/play\/connect4x4\/[0-9a-f]{32}$/);
  await page.waitForSelector(".c4[data-turn=mine]");
  return gameOf(page);
}

const leaves = (page, from) => page.waitForFunction((id) => !location.hash.endsWith(id) && document.querySelector(".c4"), from);

await main(async (browser) => {
  const page = await newPage(browser);
  await signIn(page, "Ada");
  const days = await startWith(page, "2 days per move");
  const blitz = await startWith(page, "5+3");
  const untimed = await startWith(page, "untimed");
  await page.check("#next-after-move");
  await page.click(".c4[data-turn=mine] button.column.legal[data-move=df]");
  await leaves(page, untimed);
  const afterMove = gameOf(page);
  await page.waitForSelector(".c4[data-turn=mine]");
  await page.keyboard.press("Alt+N");
  await leaves(page, afterMove);
  const afterKey = gameOf(page);
  await page.waitForSelector("#next-game");
  await screenshot(page, "next-game");
  await page.click("#next-game");
  await leaves(page, afterKey);
  const afterButton = gameOf(page);
  const kept = await page.evaluate(() => localStorage.getItem("parlor.nextAfterMove"));
  const shortcut = await page.locator("#shortcuts dt").allTextContents();
  report({ days, blitz, untimed, afterMove, afterKey, afterButton, kept, shortcut });
});
