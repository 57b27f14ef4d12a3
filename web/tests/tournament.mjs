// A tournament in the browser (issue 43): Ada creates a one-round Swiss of Connect 4x4 from
// the tournaments page; Bob finds it in the list and joins; Ada's page (never reloaded) shows
// him enter, she adds three bots and starts it; both pages show the pairing; Bob opens his
// game from the round's table and resigns it; Ada's standings show his opponent's win live.
import { BASE, main, newPage, report, screenshot, signIn } from "./browser.mjs";

const idOf = (page) => page.evaluate(() => JSON.parse(localStorage.getItem("parlor.session")).playerId);

await main(async (browser) => {
  const ada = await newPage(browser);
  const bob = await newPage(browser);
  await signIn(ada, "Ada");
  await signIn(bob, "Bob");
  const bobId = await idOf(bob);
  let adaLoads = 0;
  ada.on("load", () => adaLoads++);

  await ada.click("#tournaments-link");
  await ada.waitForSelector("#create-tournament");
  await ada.fill("#tn-name", "Friday Swiss");
  await ada.selectOption("#tn-format", { label: "Swiss (rounds)" });
  await ada.selectOption("#tn-game", "connect4x4");
  await ada.fill("#tn-max-players", "4");
  await ada.fill("#tn-rounds", "1");
  await ada.click("#create-tournament-button");
  await ada.waitForURL(/#\/tournament\/[0-9a-f]{32}$/);
  const tournamentId = decodeURIComponent(ada.url().split("/").pop());
  await ada.waitForSelector("#main[data-status=upcoming]");

  await bob.goto(BASE + "/#/tournaments");
  await bob.click(`#tournaments-upcoming li[data-tournament="${tournamentId}"] a`);
  await bob.waitForSelector("#tn-join");
  await bob.click("#tn-join");
  await ada.waitForSelector(`#tn-entrants li[data-player="${bobId}"]`); // live, on her stream
  for (let i = 0; i < 3; i++) {
    const before = await ada.locator("#tn-entrants li[data-player]").count();
    await ada.click("#tn-add-bot");
    await ada.waitForFunction((n) => document.querySelectorAll("#tn-entrants li[data-player]").length > n, before);
  }
  await ada.click("#tn-start");
  await Promise.all([ada, bob].map((p) => p.waitForSelector("#tn-rounds [data-round='1'] li[data-game]", { timeout: 60000 })));
  const tables = await ada.locator("#tn-rounds li[data-game]").evaluateAll((els) => els.map((e) => ({ game: e.dataset.game, text: e.textContent })));

  // Bob's game, opened from his page's table, resigned
  const mine = bob.locator(`#tn-rounds li[data-seats~="${bobId}"]`);
  const named = await mine.textContent();
  const opponent = (await mine.getAttribute("data-seats")).split(" ").find((p) => p !== bobId);
  const pointsOf = (page, player) => page.evaluate((p) => Number(document.querySelector(`#tn-standings tr[data-player="${p}"] .points`)?.textContent ?? "-1"), player);
  // (the bots' own game may be over already: only this game's two are read)
  const before = { bob: await pointsOf(ada, bobId), opponent: await pointsOf(ada, opponent) };
  const bobGame = await mine.getAttribute("data-game");
  await mine.locator("a").click();
  await bob.waitForSelector("#c4-resign:not([disabled])");
  bob.once("dialog", (d) => void d.accept());
  await bob.click("#c4-resign");
  await bob.waitForSelector("#main[data-finished=true]");

  // Ada's standings, on the page she never reloaded: a win counted
  await ada.waitForFunction((p) => Number(document.querySelector(`#tn-standings tr[data-player="${p}"] .points`)?.textContent) > 0, opponent, { timeout: 60000 });
  const standings = await ada.locator("#tn-standings tbody tr").evaluateAll((rows) => rows.map((r) => ({ player: r.dataset.player, points: Number(r.querySelector(".points").textContent) })));
  await screenshot(ada, "tournament");
  report({ tournamentId, bobId, named, opponent, tables, bobGame, before, standings, adaLoads });
});
