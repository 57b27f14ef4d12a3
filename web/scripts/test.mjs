// The web client's unit tests: each tests/unit/*.test.ts bundled by esbuild (types stripped;
// the page's modules they import come with them) into a temporary folder, then node's test
// runner on the bundles. No browser, no server: the logic that needs neither (clocks).
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const web = join(dirname(fileURLToPath(import.meta.url)), "..");
const dir = join(web, "tests", "unit");
const tests = readdirSync(dir).filter((f) => f.endsWith(".test.ts"));
const out = mkdtempSync(join(tmpdir(), "parlor-web-unit-"));
try {
  await build({
    entryPoints: tests.map((f) => join(dir, f)),
    bundle: true,
    platform: "node",
    format: "esm",
    target: ["node18"],
    outdir: out,
    outExtension: { ".js": ".mjs" },
    external: ["node:*"],
    logLevel: "warning",
  });
  const bundles = readdirSync(out).filter((f) => f.endsWith(".mjs")).map((f) => join(out, f));
  const run = spawnSync(process.execPath, ["--test", ...bundles], { stdio: "inherit" });
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
