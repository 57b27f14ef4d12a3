// Two players chat during a game; a spectator's kibitz never reaches either player's page while
// the game runs (not on the page, and no player's page asks for the spectators' room), and is
// shown to them once it has ended.
import { BASE, main, meetInLobby, newPage, report, screenshot, signIn } from "./browser.mjs";

// The rooms each page asked to watch (the ChatService WatchRoom requests it sent).
function watchedRooms(page) {
  const rooms = [];
  page.on("request", (request) => {
    if (request.url().endsWith("/parlor.chat.v1.ChatService/WatchRoom")) rooms.push(JSON.parse(request.postData() ?? "{}").room?.kind ?? "");
  });
  return rooms;
}

async function say(page, text) {
  await page.fill("#chat-text", text);
  await page.click("#chat-form button[type=submit]");
}

await main(async (browser) => {
  const { ada, bob } = await meetInLobby(browser);
  const watched = { ada: watchedRooms(ada), bob: watchedRooms(bob) };
  await Promise.all([ada.waitForSelector("#chat-players", { state: "attached" }), bob.waitForSelector("#chat-players", { state: "attached" })]);
  const link = await (await ada.waitForSelector("#spectator-link")).getAttribute("href");
  const cyd = await newPage(browser);
  const cydWatched = watchedRooms(cyd); // from the start: shows what the capture sees
  await signIn(cyd, "Cyd");
  await cyd.goto(BASE + "/" + link);
  await cyd.waitForSelector("#chat-spectators", { state: "attached" });

  await say(ada, "Good luck, Bob");
  await bob.waitForSelector("#chat-players li:has-text('Good luck, Bob')");
  await bob.click(".chat-preset:has-text('Thanks')");
  await ada.waitForSelector("#chat-players li:has-text('Thanks')");

  await say(cyd, "Ada should take the middle");
  await cyd.waitForSelector("#chat-spectators li:has-text('Ada should take the middle')");
  // Give the kibitz every chance to arrive where it must not (Bob's next message comes after it).
  await say(bob, "your move");
  await ada.waitForSelector("#chat-players li:has-text('your move')");
  const during = {
    ada: (await ada.content()).includes("Ada should take the middle"),
    bob: (await bob.content()).includes("Ada should take the middle"),
    adaKibitzRoom: await ada.locator("#chat-spectators").count(),
    bobKibitzRoom: await bob.locator("#chat-spectators").count(),
    watchedWhilePlaying: { ada: [...watched.ada], bob: [...watched.bob] },
    spectatorWatched: [...cydWatched],
  };
  await screenshot(ada, "chat");

  ada.once("dialog", (dialog) => dialog.accept());
  await ada.click("#c4-resign");
  await ada.waitForSelector("#main[data-finished=true]");
  await bob.waitForSelector("#main[data-finished=true]");
  await ada.waitForSelector("#chat-spectators li:has-text('Ada should take the middle')");
  await bob.waitForSelector("#chat-spectators li:has-text('Ada should take the middle')");
  report({ during, after: { ada: true, bob: true } });
});
