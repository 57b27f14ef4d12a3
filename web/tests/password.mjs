// Built-in accounts in the browser (PARLOR_WEB_PASSWORD_ACCOUNTS): sign up with a handle and a
// password on the first page, sign out, a wrong password refused with its reason, signed in
// again; the refresh token only in the bridge's HttpOnly cookie; then "erase my account",
// behind its confirmation, after which the password signs into nothing.
import { BASE, main, newPage, report, screenshot } from "./browser.mjs";

const HANDLE = process.env.HANDLE ?? "ada";
const PASSWORD = process.env.PASSWORD ?? "correct horse battery";

async function submit(page, form, handle, password) {
  await page.fill(`#${form} input[name=handle]`, handle);
  await page.fill(`#${form} input[name=password]`, password);
  await page.click(`#${form} button[type=submit]`);
}

await main(async (browser) => {
  const page = await newPage(browser);
  await page.goto(BASE + "/");
  await page.waitForSelector("#password-account");
  await screenshot(page, "password-sign-in");
  await submit(page, "password-sign-up", HANDLE, PASSWORD);
  await page.waitForFunction((h) => document.querySelector("#account-handle")?.textContent === h, HANDLE);
  const signedUp = await page.textContent("#who-name");
  const cookies = await page.context().cookies();
  const sessionCookie = cookies.find((c) => c.name === "parlor-session");
  const storage = await page.evaluate(() => JSON.stringify({ ...window.localStorage, ...window.sessionStorage }));
  const documentCookie = await page.evaluate(() => document.cookie);

  await page.click("#account-sign-out");
  await page.waitForSelector("#guest-name");
  await submit(page, "password-sign-in", HANDLE, "not the password");
  await page.waitForFunction(() => document.querySelector("#notice")?.textContent?.includes("SIGN_IN_FAILED"));
  const wrongPassword = await page.textContent("#notice");
  await submit(page, "password-sign-in", HANDLE, PASSWORD);
  await page.waitForFunction((h) => document.querySelector("#account-handle")?.textContent === h, HANDLE);
  const signedIn = await page.textContent("#who-name");
  await page.waitForSelector("#sessions li[data-session]");
  const sessions = await page.$$eval("#sessions li[data-session]", (els) => els.map((e) => e.textContent));

  // erasure: asked to confirm; a wrong answer erases nothing
  await page.click("#erase-account");
  await page.fill("#erase-confirm", "yes");
  await page.click("#erase-confirmed");
  await page.waitForFunction(() => document.querySelector("#notice")?.textContent?.startsWith("Not erased"));
  const stillThere = await page.textContent("#account-handle");
  await page.fill("#erase-confirm", HANDLE);
  await page.click("#erase-confirmed");
  await page.waitForSelector("#guest-name");
  await submit(page, "password-sign-in", HANDLE, PASSWORD);
  await page.waitForFunction(() => document.querySelector("#notice")?.textContent?.includes("SIGN_IN_FAILED"));
  const afterErasure = await page.textContent("#notice");

  report({ signedUp, sessionCookie, storage, documentCookie, wrongPassword, signedIn, sessions, stillThere, afterErasure });
});
