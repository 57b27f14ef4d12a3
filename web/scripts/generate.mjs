// Generates src/gen from ../protos with buf and protoc-gen-es (both from npm, see package.json).
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const web = join(dirname(fileURLToPath(import.meta.url)), "..");
rmSync(join(web, "src", "gen"), { recursive: true, force: true });
execFileSync(join(web, "node_modules", ".bin", "buf"), ["generate", join(web, "..", "protos")], {
  cwd: web,
  stdio: "inherit",
});
