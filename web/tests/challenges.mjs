// Ada challenges Bob from the lobby; Bob sees it without reloading and accepts; both pages
// open the game. Ada resigns and offers a rematch while Bob's page is closed; Bob opens the
// page later, finds the offer among his challenges and accepts; the rematch opens for both.
import { BASE, main, newPage, report, screenshot, signIn } from "./browser.mjs";

const gameOf = (page) => decodeURIComponent(page.url().split("/").pop());
const playing = /#\/play\/connect4x4\/[0-9a-f]{32}$/;

await main(async (browser) => {
  const ada = await newPage(browser);
  let bob = await newPage(browser);
  ada.on("dialog", (dialog) => void dialog.accept()); // "Resign this game?"
  await signIn(ada, "Ada");
  await signIn(bob, "Bob");
  const bobId = await bob.evaluate(() => JSON.parse(localStorage.getItem("parlor.session")).playerId);

  await ada.fill("#challenge-player", bobId);
  await ada.selectOption("#challenge-game", "connect4x4");
  await ada.click("#send-challenge");
  await ada.waitForSelector("#outgoing-challenges li[data-challenge]");
  // Bob's lobby: the challenge arrives on his stream
  await bob.waitForSelector("#incoming-challenges li[data-challenge] button.accept");
  await screenshot(bob, "challenge-incoming");
  await bob.click("#incoming-challenges li[data-challenge] button.accept");
  await Promise.all([ada.waitForURL(playing), bob.waitForURL(playing)]);
  const first = gameOf(ada);
  await Promise.all([ada.waitForSelector(".c4"), bob.waitForSelector(".c4")]);

  await ada.click("#c4-resign");
  await ada.waitForSelector("#offer-rematch");
  await bob.close(); // Bob is away
  await ada.click("#offer-rematch");
  await ada.waitForSelector("#offer-rematch:disabled");
  await ada.click('#who a[href="#/"]'); // back to the lobby, where her stream follows
  await ada.waitForSelector("#outgoing-challenges li[data-challenge]");

  bob = await ada.context().browser().contexts()[1].newPage(); // Bob's browser, later
  await bob.goto(BASE + "/");
  await bob.waitForSelector("#incoming-challenges li[data-challenge] button.accept");
  const offer = (await bob.locator("#incoming-challenges li[data-challenge]").first().textContent()).trim();
  await bob.click("#incoming-challenges li[data-challenge] button.accept");
  await Promise.all([ada.waitForURL(playing), bob.waitForURL(playing)]);
  await bob.waitForSelector(".c4");
  await screenshot(bob, "rematch");
  report({ first, rematch: gameOf(bob), adaRematch: gameOf(ada), offer, bobId });
});
