// A guest starts a game, then signs in with an account through the OpenID Connect provider
// (tests/oidc, its own pages) and claims the guest's games on the account page: the guest's
// game is then among the account's. Claiming again is refused with its reason. The account's
// sessions are listed, and "sign out everywhere" ends them: this browser is a guest's again.
import { BASE, main, newPage, report, screenshot, signIn } from "./browser.mjs";

const LOGIN = process.env.LOGIN ?? "ada";

await main(async (browser) => {
  const page = await newPage(browser);
  await signIn(page, "Gus");
  await page.selectOption("#bot-game", "connect4x4");
  await page.click("#start-bot-game");
  await page.waitForSelector(".c4");
  const gameId = decodeURIComponent(page.url().split("/").pop());
  const guest = await page.evaluate(() => JSON.parse(localStorage.getItem("parlor.session")));

  // the account page of a guest offers the sign-in; at the provider: login, then consent
  await page.goto(BASE + "/#/account");
  await page.click("#sign-in-account a[data-provider]");
  await page.waitForSelector("form#login");
  await page.fill("form#login input[name=login]", LOGIN);
  await page.click("form#login button[type=submit]");
  await page.waitForSelector("form#consent");
  await page.click("form#consent button[type=submit]");

  // back, signed in: the guest this browser played as is offered, and claimed
  await page.waitForSelector("#account #set-handle");
  const account = await page.evaluate(() => JSON.parse(localStorage.getItem("parlor.session")));
  const offered = await page.textContent("#claim-guest");
  await page.click("#claim-guest-button");
  const claimed = await (await page.waitForSelector("#claim-result[data-claimed]")).getAttribute("data-claimed");
  const claimText = await page.textContent("#claim-result");
  await page.waitForSelector("#claimed-guests");
  await screenshot(page, "account-claimed");

  // claiming the same guest again (its token put back): refused, the reason shown
  await page.evaluate((g) => localStorage.setItem("parlor.guest", JSON.stringify(g)), guest);
  await page.reload();
  await page.click("#claim-guest-button");
  const refusedReason = await (await page.waitForSelector("#claim-result[data-reason]")).getAttribute("data-reason");

  // the guest's game is the account's now: among its games in progress in the lobby
  await page.goto(BASE + "/#/");
  await page.waitForSelector(`#my-open-games a[data-game="${gameId}"]`);
  const listedInLobby = true;

  // the sessions, then signing out everywhere
  await page.goto(BASE + "/#/account");
  await page.waitForSelector("#sessions li[data-session]");
  const sessions = await page.$$eval("#sessions li[data-session]", (els) => els.map((e) => e.getAttribute("data-session")));
  await screenshot(page, "account-sessions");
  await page.click("#sign-out-everywhere");
  await page.waitForSelector("#guest-name");
  const renewAfter = await page.evaluate(async () => {
    const r = await fetch("/auth/session", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    return { status: r.status, reason: (await r.json()).reason };
  });
  const localStorageAfter = await page.evaluate(() => JSON.stringify({ ...window.localStorage }));

  report({ gameId, guestId: guest.playerId, accountId: account.playerId, offered, claimed, claimText, refusedReason, listedInLobby, sessions, renewAfter, localStorageAfter });
});
