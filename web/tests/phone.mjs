// Each game on a phone: at 390x844 (touch) the whole board is on the screen without
// scrolling sideways, pictured for docs/screenshots (phone-<game>.png; Connect 4x4's back
// too, switched to by its button); at 360 px wide nothing overflows sideways either. Every
// control a finger uses on a board page is measured: the report lists those under 44 px.
import { main, newPage, report, screenshot, signIn, startAgainstBot } from "./browser.mjs";

// The board's box, the page's overflow and every small touch target, as the page lays them out.
const measure = (page) =>
  page.evaluate(() => {
    const board = document.querySelector(".board-area [role=grid]:not([hidden])")?.closest(".c4, .uw, .tf") ?? document.querySelector(".board-area > *");
    const grids = [...document.querySelectorAll(".board-area [role=grid]")].filter((g) => g.offsetParent !== null);
    const box = (el) => {
      const r = el.getBoundingClientRect();
      return { left: Math.round(r.left), right: Math.round(r.right), top: Math.round(r.top), bottom: Math.round(r.bottom), width: Math.round(r.width), height: Math.round(r.height) };
    };
    const small = [...document.querySelectorAll("#main button, #main select, #main input:not([type=checkbox]):not([type=range])")]
      .filter((el) => el.offsetParent !== null)
      .map((el) => ({ what: el.id || el.getAttribute("aria-label") || el.textContent.trim(), ...box(el) }))
      .filter((b) => b.width < 44 || b.height < 44);
    const cells = grids.flatMap((g) => [...g.querySelectorAll("[role=gridcell]")]).map((c) => c.getBoundingClientRect().width);
    return {
      viewport: { width: innerWidth, height: innerHeight },
      scrollWidth: document.documentElement.scrollWidth,
      board: board ? box(board) : null,
      grids: grids.map(box),
      small,
      cell: cells.length ? Math.round(Math.min(...cells)) : 0,
    };
  });

await main(async (browser) => {
  const page = await newPage(browser, { phone: true });
  await signIn(page, "Ada");
  const games = {};
  for (const [game, bot, ready] of [
    ["connect4x4", "bot:random", ".c4[data-turn=mine] button.column.legal"],
    ["upwords", "bot:random", "#rack .tile"],
    ["takefour", "bot:easy", "#tf-hand .tile"],
  ]) {
    await page.setViewportSize({ width: 390, height: 844 });
    await startAgainstBot(page, game, bot);
    await page.waitForSelector(ready);
    await page.evaluate(() => window.scrollTo(0, 0));
    const at390 = await measure(page);
    await screenshot(page, `phone-${game}`, { fullPage: false });
    let back = null;
    if (game === "connect4x4") {
      await page.tap("#c4-show-b");
      await page.waitForSelector('.c4[data-shown="b"]');
      back = await measure(page);
      await screenshot(page, "phone-connect4x4-back", { fullPage: false });
      await page.tap("#c4-show-f");
    }
    await page.setViewportSize({ width: 360, height: 740 });
    const at360 = await measure(page);
    games[game] = { at390, back, at360 };
  }
  report({ games });
});
