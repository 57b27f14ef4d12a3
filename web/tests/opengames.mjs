// A guest's games in progress: a game against a bot left for the lobby is listed under "Your
// games in progress"; starting one more past the cap (the test's server allows one) is refused
// in words that point at that list; the game opened from the list is resigned, and is then
// under the finished games instead.
import { main, newPage, report, screenshot, signIn } from "./browser.mjs";

const link = (id) => `a[data-game="${id}"]`;
const inProgress = (id) => `#my-open-games ${link(id)}`;
const finished = (id) => `#my-games ${link(id)}`;

await main(async (browser) => {
  const page = await newPage(browser);
  page.on("dialog", (dialog) => void dialog.accept()); // "Resign this game?"
  await signIn(page, "Ida");
  const playerId = await page.evaluate(() => JSON.parse(localStorage.getItem("parlor.session")).playerId);
  await page.selectOption("#bot-game", "connect4x4");
  await page.selectOption("#bot-level", "bot:random");
  await page.click("#start-bot-game");
  await page.waitForURL(/#\/play\/connect4x4\//);
  const gameId = decodeURIComponent(page.url().split("/").pop());
  await page.waitForSelector(".c4");

  // Back to the lobby: the game is among the guest's games in progress, not the finished ones.
  await page.click('#who a[href="#/"]');
  await page.waitForSelector(inProgress(gameId));
  const listed = (await page.locator(`#my-open-games li:has(${link(gameId)})`).textContent()).trim();
  const finishedBefore = await page.locator(finished(gameId)).count();

  // One more game is refused: the page says why and what to do, and stays in the lobby.
  await page.selectOption("#bot-game", "connect4x4");
  await page.click("#start-bot-game");
  await page.waitForSelector("#notice.error");
  const refusal = await page.textContent("#notice");
  const stayed = page.url();
  await screenshot(page, "lobby-in-progress");

  // Opened from the list, the game is played on its page; resigned there, it has ended.
  await page.click(inProgress(gameId));
  await page.waitForURL(new RegExp(`#/play/connect4x4/${gameId}$`));
  await page.click("#c4-resign");
  await page.waitForSelector('#main[data-finished="true"]');
  const status = await page.textContent("#status");

  await page.click('#who a[href="#/"]');
  await page.waitForSelector(finished(gameId));
  await page.waitForSelector("#my-open-games li");
  const after = {
    inProgress: await page.locator(inProgress(gameId)).count(),
    openText: (await page.locator("#my-open-games").textContent()).trim(),
    finished: (await page.locator(`#my-games li:has(${link(gameId)})`).textContent()).trim(),
  };
  report({ playerId, gameId, listed, finishedBefore, refusal, stayed, status, after });
});
