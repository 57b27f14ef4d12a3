// Generates src/gen from ../../protos with buf and protoc-gen-es (both from npm, see package.json).
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
rmSync(join(here, "src", "gen"), { recursive: true, force: true });
rmSync(join(here, "dist"), { recursive: true, force: true });
execFileSync(join(here, "node_modules", ".bin", "buf"), ["generate", join(here, "..", "..", "protos")], {
  cwd: here,
  stdio: "inherit",
});
