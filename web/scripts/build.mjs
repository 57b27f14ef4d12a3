// Bundles src/ into the web gateway's package data (served by the platform and parlor-web).
import { build } from "esbuild";
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const web = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(web, "..", "libs", "webgateway", "src", "parlor", "webgateway", "static");
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(web, "src", "main.ts")],
  bundle: true,
  minify: true,
  sourcemap: true,
  format: "esm",
  target: ["es2022"],
  outfile: join(out, "app.js"),
  logLevel: "warning",
});
cpSync(join(web, "src", "index.html"), join(out, "index.html"));
cpSync(join(web, "src", "style.css"), join(out, "style.css"));
// each game's rules page (docs/rules), read by the game pages' "Rules of <game>"
cpSync(join(web, "..", "docs", "rules"), join(out, "rules"), { recursive: true, filter: (f) => !/\.(?!md$)[^/]+$/.test(f) });
console.log(`web client built into ${out}`);
