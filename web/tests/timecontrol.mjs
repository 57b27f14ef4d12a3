// A guest picks a time control other than the default for a private lobby; the friend who
// joins with the code lands in the same game, on that clock.
import { main, meetInLobby, report } from "./browser.mjs";

const gameOf = (page) => decodeURIComponent(page.url().split("/").pop());

await main(async (browser) => {
  let offered, preselected;
  const { ada, bob } = await meetInLobby(browser, {
    beforeOpen: async (page) => {
      const select = page.locator("#mm-time-control");
      offered = await select.locator("option").allTextContents();
      preselected = await select.evaluate((s) => s.options[s.selectedIndex].textContent);
      await select.selectOption({ label: "3+2" });
    },
  });
  const labels = await Promise.all(
    [ada, bob].map(async (p) => (await p.waitForSelector("#time-control")).textContent()),
  );
  report({ offered, preselected, labels, games: [gameOf(ada), gameOf(bob)] });
});
