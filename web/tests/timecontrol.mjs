// A guest picks a time control other than the default for a private lobby; the friend who
// joins with the code lands in the same game, on that clock.
import { main, newPage, report, signIn } from "./browser.mjs";

const gameOf = (page) => decodeURIComponent(page.url().split("/").pop());

await main(async (browser) => {
  const ada = await newPage(browser);
  const bob = await newPage(browser);
  await signIn(ada, "Ada");
  await signIn(bob, "Bob");
  await ada.selectOption("#mm-game", "connect4x4");
  await ada.fill("#mm-min", "2");
  await ada.fill("#mm-max", "2");
  const select = ada.locator("#mm-time-control");
  const offered = await select.locator("option").allTextContents();
  const preselected = await select.evaluate((s) => s.options[s.selectedIndex].textContent);
  await select.selectOption({ label: "3+2" });
  await ada.click("#create-lobby");
  const invite = await (await ada.waitForSelector("#lobby-code")).textContent();
  await bob.fill("#join-code", invite);
  await bob.click("#join-lobby button[type=submit]");
  await Promise.all([ada.waitForURL(/#\/play\/connect4x4\//), bob.waitForURL(/#\/play\/connect4x4\//)]);
  const labels = await Promise.all(
    [ada, bob].map(async (p) => (await p.waitForSelector("#time-control")).textContent()),
  );
  report({ offered, preselected, labels, games: [gameOf(ada), gameOf(bob)] });
});
