// axe-core (npm's @axe-core/playwright, in Debian's chromium) on every page and game state:
// sign-in, the lobby (with a ticket waiting), the tournaments and a tournament, each game playing, waiting for the other
// player, watched by a spectator and finished, and each game's replay. Every violation is
// reported (rule, impact, the elements); the Python test asks for none serious or critical.
// Each game is checked playing with its rules opened under the board (what they say is
// reported: their first heading, sections and tables).
import AxeBuilder from "@axe-core/playwright";
import { BASE, main, meetInLobby, newPage, report, signIn, startAgainstBot } from "./browser.mjs";

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];
const results = {};
const rules = {};

async function check(page, state) {
  // the page settled: no animation frame pending, the fonts in
  await page.evaluate(() => document.fonts.ready);
  const { violations } = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  results[state] = violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
}

const finished = (page) => page.waitForSelector("#main[data-finished=true]");

// A game against a bot: playing, watched (by `watcher`), resigned or left (finished), replayed.
async function states(page, watcher, game, bot, ready, end) {
  const id = await startAgainstBot(page, game, bot);
  await page.waitForSelector(ready);
  await page.click("#rules-summary");
  await page.waitForSelector("#rules[data-loaded=true]");
  rules[game] = {
    heading: await page.textContent("#rules-body h3"),
    sections: await page.locator("#rules-body h4").allTextContents(),
    tables: await page.locator("#rules-body table").count(),
  };
  await check(page, `${game} playing`);
  await watcher.goto(`${BASE}/#/play/${game}/${encodeURIComponent(id)}`);
  await watcher.waitForSelector("#main[data-version] .board-area > *");
  await check(watcher, `${game} spectating`);
  page.once("dialog", (d) => void d.accept());
  await page.click(end);
  await finished(page);
  await check(page, `${game} finished`);
  await page.click("#replay-link");
  await page.waitForSelector("#main[data-loaded=true]");
  await check(page, `${game} replay`);
}

await main(async (browser) => {
  const page = await newPage(browser);
  await page.goto(BASE + "/");
  await page.waitForSelector("#sign-in");
  await check(page, "sign-in");
  await signIn(page, "Ada");
  await check(page, "lobby");
  // the tournaments: the list with its form, then a tournament's page
  await page.click("#tournaments-link");
  await page.waitForSelector("#tournaments-upcoming li");
  await check(page, "tournaments");
  await page.fill("#tn-name", "Axe Swiss");
  await page.click("#create-tournament-button");
  await page.waitForSelector("#main[data-status=upcoming] #tn-entrants li");
  await check(page, "tournament");
  const watcher = await newPage(browser);
  await signIn(watcher, "Cy");
  await states(page, watcher, "connect4x4", "bot:random", ".c4[data-turn=mine]", "#c4-resign");
  await states(page, watcher, "upwords", "bot:random", ".uw[data-turn=mine]", "#uw-resign");
  await states(page, watcher, "takefour", "bot:easy", "#tf-hand .tile", "#tf-leave");

  // Waiting: the other player's turn, two guests in a private lobby (its ticket first).
  for (const game of ["connect4x4", "upwords"]) {
    const { ada, bob } = await meetInLobby(browser, { game, afterOpen: game === "connect4x4" ? (p) => check(p, "lobby, a ticket waiting") : async () => {} });
    await Promise.all([ada.waitForSelector(".board-area [role=grid]"), bob.waitForSelector(".board-area [role=grid]")]);
    const turn = game === "connect4x4" ? ".c4[data-turn=mine]" : ".uw[data-turn=mine]";
    const waiting = (await ada.locator(turn).count()) ? bob : ada;
    await check(waiting, `${game} waiting`);
    await ada.context().close();
    await bob.context().close();
  }
  report({ results, rules });
});
