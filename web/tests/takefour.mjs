// Take Four in the browser: a hand tile placed on the grid by clicking, moved, taken back;
// a joker's letter asked for; the progress table and the refusal of an early Take Four call;
// then the game left (asked first): the seat forfeits, the bot wins, the page shows it over.
import { main, newPage, report, screenshot, signIn } from "./browser.mjs";

await main(async (browser) => {
  const page = await newPage(browser);
  await signIn(page, "Ada");
  await page.selectOption("#bot-game", "takefour");
  await page.selectOption("#bot-level", "bot:easy");
  await page.click("#start-bot-game");
  await page.waitForURL(/#\/play\/takefour\//);
  const gameId = decodeURIComponent(page.url().split("/").pop());
  await page.waitForSelector("#tf-hand .tile");
  const hand = await page.locator("#tf-hand .tile").evaluateAll((els) => els.map((e) => e.dataset.tile));
  // The bot plays on its own grid meanwhile, so the page is waited on for what each action
  // does, not for any new version.
  const cellIs = (cell, text) =>
    page.waitForFunction(([c, t]) => document.querySelector(`[data-cell="${c}"] .face`)?.textContent === t, [cell, text]);

  // Take Four with tiles still in hand: refused, the reason shown.
  await page.click("#tf-takefour");
  await page.waitForSelector("#notice.error");
  const refusal = await page.textContent("#notice");

  // place the first letter tile (a joker needs its letter typed first)
  const index = hand.findIndex((t) => t !== "?");
  await page.locator("#tf-hand .tile").nth(index).click();
  await page.click('[data-cell="0,0"]');
  await cellIs("0,0", hand[index]);
  const placed = await page.textContent('[data-cell="0,0"] .face');
  // move it one to the right
  await page.click('[data-cell="0,0"]');
  await page.click('[data-cell="1,0"]');
  await cellIs("1,0", hand[index]);
  const moved = [await page.textContent('[data-cell="0,0"] .face'), await page.textContent('[data-cell="1,0"] .face')];
  const progress = await page.locator("#tf-progress tr").allTextContents();
  await screenshot(page, "takefour");
  // and back into the hand
  await page.click('[data-cell="1,0"]');
  await page.click("#tf-takeback");
  await cellIs("1,0", "");
  await page.waitForFunction((n) => document.querySelectorAll("#tf-hand .tile").length === n, hand.length);
  const handAfter = await page.locator("#tf-hand .tile").count();
  // leave: asked first, then the seat forfeits; with one seat left the bot wins
  let asked = "";
  page.once("dialog", (dialog) => {
    asked = dialog.message();
    void dialog.accept();
  });
  await page.click("#tf-leave");
  await page.waitForSelector('.tf[data-phase="over"]');
  const leaveAfter = await page.locator("#tf-leave").count();
  report({ gameId, hand, refusal, placed, moved, progress, handAfter, letter: hand[index], asked, leaveAfter });
});
