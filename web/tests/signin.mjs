// A user signs in with an account: the sign-in button sends the browser to the OpenID Connect
// provider (tests/oidc, its own login and consent pages), which sends it back through the
// bridge's callback; the account page shows up, a handle is chosen and shown, the session
// survives a reload, the player is shown by handle on a game's page and in the lobby, and
// signing out ends it. A forged callback is refused with its reason.
import { BASE, main, newPage, report, screenshot } from "./browser.mjs";

const LOGIN = process.env.LOGIN ?? "ada";
const HANDLE = process.env.HANDLE ?? "ada";

await main(async (browser) => {
  const page = await newPage(browser);
  await page.goto(BASE + "/");
  await page.click("#sign-in-account a[data-provider]");

  // at the provider: its login page, then its consent page
  const providerPages = [];
  await page.waitForSelector("form#login");
  const providerUrl = page.url();
  providerPages.push("login");
  await page.fill("form#login input[name=login]", LOGIN);
  await page.click("form#login button[type=submit]");
  await page.waitForSelector("form#consent");
  providerPages.push("consent");
  await page.click("form#consent button[type=submit]");

  // back at Parlor, signed in: the account page
  await page.waitForSelector("#account #set-handle");
  const signedIn = (await page.textContent("#who")).includes("Signed in as");
  await page.fill("#handle", HANDLE);
  await page.click("#set-handle button[type=submit]");
  const lower = HANDLE.toLowerCase();
  await page.waitForFunction((h) => document.querySelector("#account-handle")?.textContent === h, lower);
  const handleShown = await page.textContent("#account-handle");
  const headerShown = await page.textContent("#who-name");
  await screenshot(page, "account");

  await page.reload();
  await page.waitForSelector("#who-name");
  const afterReload = await page.textContent("#who-name");

  // the access token held has expired (a tab asleep past its renewal): a fresh one from the
  // bridge's session on the next page, still signed in
  await page.evaluate(() => {
    const held = JSON.parse(localStorage.getItem("parlor.session"));
    held.token = "e30.eyJzdWIiOiJ4IiwiZXhwIjoxfQ.x"; // {"sub":"x","exp":1}
    localStorage.setItem("parlor.session", JSON.stringify(held));
  });
  await page.reload();
  await page.waitForSelector("#who-name");
  const afterExpiry = await page.textContent("#who-name");

  // players are shown by handle: on a game's page, and in the lobby's lists
  await page.goto(BASE + "/#/");
  await page.waitForSelector("#vs-bots");
  await page.selectOption("#bot-game", "connect4x4");
  await page.click("#start-bot-game");
  await page.waitForSelector(".c4");
  await page.waitForFunction((h) => document.querySelector(".seats")?.textContent?.includes(h), lower);
  const seatsShown = await page.textContent(".seats");
  await page.goto(BASE + "/#/");
  await page.waitForFunction((h) => document.querySelector("#live-games")?.textContent?.includes(h), lower);
  const liveShown = await page.textContent("#live-games");

  // the leaderboards page, from the scoring service (no established player yet here)
  await page.click("#leaderboards-link");
  await page.waitForSelector("#leaderboard-connect4x4 table, #leaderboard-connect4x4 p.hint");
  const leaderboard = await page.textContent("#leaderboard-connect4x4");

  const cookies = await page.context().cookies();
  const sessionCookie = cookies.find((c) => c.name === "parlor-session");
  const localStorage = await page.evaluate(() => JSON.stringify({ ...window.localStorage }));
  const documentCookie = await page.evaluate(() => document.cookie);

  await page.goto(BASE + "/#/account");
  await page.click("#account-sign-out");
  await page.waitForSelector("#guest-name");
  const afterSignOut = {
    guestForm: true,
    sessionCookie: (await page.context().cookies()).some((c) => c.name === "parlor-session"),
  };

  // a callback this browser never began: a page that says why
  await page.goto(BASE + "/auth/callback?state=forged&code=forged");
  const forgedCallback = await page.getAttribute("#sign-in-refused", "data-reason");

  report({ leaderboard, afterExpiry, seatsShown, liveShown, signedIn, providerPages, providerUrl, handleShown, headerShown, afterReload, sessionCookie, localStorage, documentCookie, afterSignOut, forgedCallback });
});
