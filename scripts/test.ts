/**
 * @module scripts/test
 * `npm test`: the whole suite on a fresh machine. Installs the Debian packages the tests drive
 * when they are missing (as root, with apt-get), builds the single executable so the browser
 * flow also runs against `dist/earshot`, runs `bun test`, and ends with the line
 * `N passed, M failed` (CI reads it) while keeping bun's exit status.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dir, "..");
process.chdir(root);

/** Debian package → a file it installs, to tell whether it is present. */
const SYSTEM_PACKAGES: Record<string, string> = {
  chromium: "/usr/bin/chromium",
  "espeak-ng": "/usr/bin/espeak-ng",
  sox: "/usr/bin/sox",
  "opus-tools": "/usr/bin/opusenc",
  openssl: "/usr/bin/openssl",
};

function ensureSystemPackages(): void {
  const missing = Object.entries(SYSTEM_PACKAGES).filter(([, file]) => !fs.existsSync(file)).map(([pkg]) => pkg);
  if (!missing.length) return;
  if (process.getuid?.() !== 0) {
    console.error(`Missing Debian packages: ${missing.join(" ")}. Install them: sudo apt-get install -y ${missing.join(" ")}`);
    process.exit(2);
  }
  console.log(`Installing Debian packages: ${missing.join(" ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  const r = spawnSync("apt-get", ["install", "-y", "-qq", ...missing], { stdio: "inherit", env });
  if (r.status !== 0) process.exit(r.status ?? 2);
}

function buildExecutable(): Record<string, string> {
  if (process.env.EARSHOT_SKIP_BUILD === "1" || !fs.existsSync("scripts/build.ts")) return {};
  console.log("Building dist/earshot …");
  const r = spawnSync(process.execPath, ["scripts/build.ts"], { stdio: "inherit" });
  if (r.status !== 0) {
    console.error("The build failed; the binary tests will fail too.");
    return {};
  }
  return { EARSHOT_BIN: path.join(root, "dist", "earshot") };
}

ensureSystemPackages();
const env = { ...process.env, ...buildExecutable() };
const args = ["test", "--timeout", "120000", ...process.argv.slice(2)];
const child = Bun.spawn([process.execPath, ...args], { env, stdout: "inherit", stderr: "pipe" });
let tail = "";
const decoder = new TextDecoder();
const reader = child.stderr.getReader();
for (let r = await reader.read(); !r.done; r = await reader.read()) {
  process.stderr.write(r.value);
  tail = (tail + decoder.decode(r.value, { stream: true })).slice(-4000);
}
const code = await child.exited;
const count = (word: string) => Number(new RegExp(`^\\s*(\\d+) ${word}\\s*$`, "m").exec(tail)?.[1] ?? 0);
const passed = count("pass");
const failed = count("fail");
const skipped = count("skip");
const line = `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`;
console.log(line);
process.exit(code === 0 && passed === 0 ? 1 : code);
