// The server lost under an open page: every call to the bridge fails (the page's routes
// aborted, as a stopped server refuses connections) and the watch is cut. A click made before
// the page noticed leaves its error; then the banner says the connection is lost, the status
// says so, and no move can be sent; when the server is back the banner goes, the stale error
// is cleared and the moves come back, without a reload.
import { main, newPage, report, screenshot, signIn, startAgainstBot } from "./browser.mjs";

const state = (page) =>
  page.evaluate(() => ({
    banner: document.querySelector("#connection-banner")?.hidden === false ? document.querySelector("#connection-banner").textContent : "",
    bannerRole: document.querySelector("#connection-banner")?.getAttribute("role") ?? "",
    status: document.querySelector("#status")?.textContent ?? "",
    notice: document.querySelector("#notice")?.textContent ?? "",
    legal: document.querySelectorAll("button.column.legal").length,
    enabled: document.querySelectorAll(".c4-drops button:not([disabled])").length,
    resign: document.querySelector("#c4-resign")?.disabled ?? null,
    cells: document.querySelectorAll("[role=gridcell]").length,
    online: document.querySelector("#main")?.dataset.online ?? "",
  }));

await main(async (browser) => {
  const page = await newPage(browser);
  await signIn(page, "Ada");
  await startAgainstBot(page, "connect4x4", "bot:random");
  await page.waitForSelector(".c4[data-turn=mine] button.column.legal");
  const before = await state(page);

  // the server goes away: every request refused, the open stream cut
  await page.route("**/api/**", (route) => route.abort("connectionrefused"));
  await page.locator(".c4[data-turn=mine] button.column.legal").first().click();
  await page.waitForSelector("#notice.error");
  const clickError = await page.textContent("#notice");
  await page.evaluate(() => window.stop());
  await page.waitForSelector("#connection-banner:not([hidden])");
  const lost = await state(page);
  await screenshot(page, "connection-lost");

  // the server is back
  await page.unroute("**/api/**");
  await page.waitForSelector("#connection-banner[hidden]", { state: "attached", timeout: 60000 });
  await page.waitForSelector(".c4[data-turn=mine] button.column.legal");
  const back = await state(page);
  report({ before, clickError, lost, back });
});
