// Ada challenges Bob from the lobby to Connect 4x4 at 3+2 (Fischer, not the game's default),
// Bob to move first and blockers counting toward lines (the game's own Config);
// Bob sees it without reloading and accepts; both pages open the game, and they play it to
// the end: whoever starts drops four checkers in column a (front), the other in column b.
// Ada offers a rematch while Bob's page is closed; Bob opens the page later, finds the offer
// among his challenges and accepts; the rematch opens for both. In the lobby, the rematch
// is under "Your turn" for whoever starts it, with "(1)" on the page title; Ada's challenge
// button by Bob's name on the board opens the lobby's form with Bob filled in.
import { BASE, main, newPage, report, screenshot, signIn } from "./browser.mjs";

const gameOf = (page) => decodeURIComponent(page.url().split("/").pop());
const playing = /#\/play\/connect4x4\/[0-9a-f]{32}$/;
const MY_TURN = ".c4[data-turn=mine]";

// The seven moves of a game the first player wins with four in column a; the other player's
// page follows each move on its stream before playing its own.
async function playToTheEnd(pages) {
  const first = await Promise.any(pages.map((p) => p.waitForSelector(MY_TURN).then(() => p)));
  const second = pages.find((p) => p !== first);
  for (let move = 0; move < 7; move++) {
    const [page, column] = move % 2 === 0 ? [first, "af"] : [second, "bf"];
    await page.click(`${MY_TURN} button.column.legal[data-move=${column}]`);
    await page.waitForSelector(".c4[data-turn=theirs]"); // the move shown: not played twice
  }
  return first;
}

await main(async (browser) => {
  const ada = await newPage(browser);
  let bob = await newPage(browser);
  await signIn(ada, "Ada");
  await signIn(bob, "Bob");
  const bobId = await bob.evaluate(() => JSON.parse(localStorage.getItem("parlor.session")).playerId);

  await ada.fill("#challenge-player", bobId);
  await ada.selectOption("#challenge-game", "connect4x4");
  await ada.selectOption("#challenge-time-control", { label: "3+2" });
  // Bob moves first (the seat choice), and the game's own rules: blockers count toward a line
  await ada.selectOption("#challenge-seat", { label: "they move first" });
  await ada.check("#challenge-blockers-count");
  const shownFor = { connect4x4: await ada.isVisible("#challenge-blockers-count") };
  await ada.selectOption("#challenge-game", "takefour");
  shownFor.takefour = [await ada.isVisible("#challenge-blockers-count"), await ada.isVisible("#challenge-max-rounds")];
  await ada.selectOption("#challenge-game", "connect4x4");
  await ada.selectOption("#challenge-time-control", { label: "3+2" });
  await ada.click("#send-challenge");
  await ada.waitForSelector("#outgoing-challenges li[data-challenge]");
  // Bob's lobby: the challenge arrives on his stream
  await bob.waitForSelector("#incoming-challenges li[data-challenge] button.accept");
  const challenge = (await bob.locator("#incoming-challenges li[data-challenge]").first().textContent()).trim();
  await screenshot(bob, "challenge-incoming");
  await bob.click("#incoming-challenges li[data-challenge] button.accept");
  await Promise.all([ada.waitForURL(playing), bob.waitForURL(playing)]);
  const first = gameOf(ada);
  await Promise.all([ada.waitForSelector(".c4"), bob.waitForSelector(".c4")]);

  const winner = (await playToTheEnd([ada, bob])) === ada ? "ada" : "bob";
  await Promise.all([ada.waitForSelector("#offer-rematch"), bob.waitForSelector("#offer-rematch")]);
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
  const [rematch, adaRematch] = [gameOf(bob), gameOf(ada)];
  // Back in the lobby, whoever starts the rematch finds it under "Your turn", counted on the title
  // Ada challenges Bob again from his name on the board: the lobby's form has him filled in
  await ada.click(`.seats button.challenge-player[data-player="${bobId}"]`);
  await ada.waitForSelector("#challenge-player");
  const aimed = await ada.inputValue("#challenge-player");
  const ownButtons = await bob.locator(`.seats button.challenge-player[data-player="${bobId}"]`).count();
  await bob.goto(BASE + "/");
  await Promise.all([ada, bob].map((p) => p.waitForSelector("#your-turn li")));
  const turns = {};
  for (const [name, page] of [["ada", ada], ["bob", bob]])
    turns[name] = { title: await page.title(), games: await page.locator("#your-turn li[data-game]").evaluateAll((els) => els.map((e) => e.dataset.game)) };
  await screenshot(ada, "your-turn");
  report({ first, rematch, adaRematch, challenge, offer, bobId, winner, turns, aimed, ownButtons, shownFor });
});
