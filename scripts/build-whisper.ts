/**
 * @module scripts/build-whisper
 * Builds Earshot's whisper.cpp addon (native/whisper: addon.cc + CMakeLists.txt) from the
 * whisper.cpp tree of the pinned devDependency `nodejs-whisper` (cpp/whisper.cpp), with Debian's
 * cmake and g++, in one file per CPU variant (src/ai/whispercpp/variants.ts):
 *
 *   native/whisper/out/linux-x64-avx512.node     AVX-512 F/CD/VL/DQ/BW + VBMI + VNNI + BF16 (Zen 4, Sapphire Rapids and later)
 *   native/whisper/out/linux-x64-avx2.node       AVX2 + FMA + F16C + BMI2 (Haswell/Zen and later)
 *   native/whisper/out/linux-x64-baseline.node   SSE4.2 only (what Bun's baseline build needs too)
 *
 * (on an arm64 machine: linux-arm64.node, NEON being part of the architecture). The variants
 * build in parallel, each with -j<cores>, in native/whisper/build/<key>/, <key> = a hash of the
 * whisper.cpp version, the variant's flags and the compilers' versions; when only addon.cc
 * changed, cmake recompiles just that file there. Each built file is kept in a shared cache
 * (~/.cache/earshot/whisper-addon/<variant>-<hash>.node, the hash adding the addon's sources):
 * when it is there, nothing is compiled and the run takes well under a second.
 *
 *   bun scripts/build-whisper.ts [--quiet]
 *
 * Exits non-zero with cmake's output when a build fails. scripts/build.ts embeds the files in
 * dist/earshot; from source src/ai/whispercpp/addon.ts loads them from native/whisper/out/.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { VARIANTS, type WhisperVariant } from "../src/ai/whispercpp/variants.ts";

const ROOT = path.resolve(import.meta.dir, "..");
const ADDON_DIR = path.join(ROOT, "native", "whisper");
export const OUT_DIR = path.join(ADDON_DIR, "out");
const CACHE_DIR = path.join(ADDON_DIR, "build");
const SOURCE_PACKAGE = path.join(ROOT, "node_modules", "nodejs-whisper");
const WHISPER_SOURCE = path.join(SOURCE_PACKAGE, "cpp", "whisper.cpp");
const NODE_API_HEADERS = path.join(ROOT, "node_modules", "node-api-headers", "include");

const quiet = process.argv.includes("--quiet");
const say = (line: string) => {
  if (!quiet) console.log(line);
};

/** The variants this machine's architecture can build (x64: all three; arm64: one). */
function variantsForThisMachine(): WhisperVariant[] {
  return VARIANTS.filter((v) => v.arch === process.arch);
}

function toolVersion(tool: string): string {
  const r = spawnSync(tool, ["--version"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${tool} is missing: install Debian's cmake and build-essential (apt-get install -y cmake g++ make)`);
  return r.stdout.split("\n")[0] ?? "";
}

/**
 * The build folder's key: whisper.cpp's version, the variant's flags and the compilers. The
 * addon's own sources are not part of it: cmake rebuilds just addon.cc in the same folder
 * (seconds, not the minutes whisper.cpp and ggml take).
 */
function cacheKey(variant: WhisperVariant): string {
  const hash = createHash("sha256");
  const pkg = JSON.parse(fs.readFileSync(path.join(SOURCE_PACKAGE, "package.json"), "utf8")) as { version: string };
  hash.update(`nodejs-whisper@${pkg.version}\n`);
  hash.update(fs.readFileSync(path.join(WHISPER_SOURCE, "CMakeLists.txt")));
  hash.update(JSON.stringify(variant.cmakeFlags));
  hash.update(`${toolVersion("c++")}\n${toolVersion("cmake")}\n`);
  return `${variant.id}-${hash.digest("hex").slice(0, 16)}`;
}

/**
 * The built file's key: the build folder's key plus the addon's own sources. A file of this key
 * in the shared cache (~/.cache/earshot/whisper-addon/, or under $XDG_CACHE_HOME) is reused by
 * every checkout of the same sources (the Dockerfile stage's replay, a second worktree): nothing
 * is compiled then.
 */
function fileKey(variant: WhisperVariant, buildKey: string): string {
  const hash = createHash("sha256").update(buildKey);
  for (const file of ["addon.cc", "CMakeLists.txt"]) hash.update(fs.readFileSync(path.join(ADDON_DIR, file)));
  return `${variant.id}-${hash.digest("hex").slice(0, 16)}`;
}

const SHARED_CACHE = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "earshot", "whisper-addon");

/** Copies, then renames: a process loading the old file never sees a half-written one. */
function copyInPlace(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, `${to}.${process.pid}.tmp`);
  fs.renameSync(`${to}.${process.pid}.tmp`, to);
}

function run(cmd: string, args: string[], log: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (d: Buffer) => log.push(d.toString()));
    child.stderr.on("data", (d: Buffer) => log.push(d.toString()));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(" ")} exited with ${code}`))));
  });
}

/** Builds one variant (or takes it from the shared cache) and copies it to native/whisper/out/. */
async function buildVariant(variant: WhisperVariant): Promise<{ file: string; cached: boolean; seconds: number }> {
  const started = performance.now();
  const key = cacheKey(variant);
  const buildDir = path.join(CACHE_DIR, key);
  const shared = path.join(SHARED_CACHE, `${fileKey(variant, key)}.node`);
  const out = path.join(OUT_DIR, variant.file);
  const cached = fs.existsSync(shared);
  if (!cached) {
    const log: string[] = [];
    const jobs = String(Math.max(1, os.availableParallelism()));
    try {
      await run(
        "cmake",
        [
          "-S",
          ADDON_DIR,
          "-B",
          buildDir,
          "-DCMAKE_BUILD_TYPE=Release",
          `-DWHISPER_SOURCE_DIR=${WHISPER_SOURCE}`,
          `-DNODE_API_HEADERS_DIR=${NODE_API_HEADERS}`,
          ...variant.cmakeFlags,
        ],
        log,
      );
      await run("cmake", ["--build", buildDir, "--target", "earshot_whisper", "-j", jobs], log);
    } catch (err) {
      console.error(log.join("").slice(-8000));
      throw err;
    }
    copyInPlace(path.join(buildDir, "earshot_whisper.node"), shared);
  }
  copyInPlace(shared, out);
  return { file: out, cached, seconds: (performance.now() - started) / 1000 };
}

/** Drops build folders of other keys (each holds ~30 MB of objects) and older shared files of these variants. */
function pruneCache(variants: WhisperVariant[]): void {
  const keep = new Set(variants.map(cacheKey));
  const keepFiles = new Set(variants.map((v) => `${fileKey(v, cacheKey(v))}.node`));
  if (fs.existsSync(CACHE_DIR)) {
    for (const entry of fs.readdirSync(CACHE_DIR)) if (!keep.has(entry)) fs.rmSync(path.join(CACHE_DIR, entry), { recursive: true, force: true });
  }
  if (fs.existsSync(SHARED_CACHE)) {
    for (const entry of fs.readdirSync(SHARED_CACHE)) {
      const ofThese = variants.some((v) => entry.startsWith(`${v.id}-`));
      if (ofThese && !keepFiles.has(entry)) fs.rmSync(path.join(SHARED_CACHE, entry), { force: true });
    }
  }
}

/**
 * Builds every variant of this machine's architecture (in parallel) unless cached.
 * @returns the paths written under native/whisper/out/
 * @throws Error when cmake or the compiler is missing or a build fails
 */
export async function buildWhisperAddons(): Promise<string[]> {
  if (!fs.existsSync(path.join(WHISPER_SOURCE, "include", "whisper.h"))) {
    throw new Error(`whisper.cpp source missing at ${WHISPER_SOURCE}: run npm ci (devDependency nodejs-whisper)`);
  }
  const variants = variantsForThisMachine();
  if (variants.length === 0) throw new Error(`no whisper.cpp variant is defined for ${process.arch}`);
  const results = await Promise.all(variants.map(buildVariant));
  pruneCache(variants);
  for (const r of results) {
    const size = (fs.statSync(r.file).size / 1024 / 1024).toFixed(1);
    say(`whisper.cpp addon: ${path.relative(ROOT, r.file)} ${size} MB (${r.cached ? "cached" : "built"} in ${r.seconds.toFixed(1)} s)`);
  }
  return results.map((r) => r.file);
}

if (import.meta.main) {
  try {
    await buildWhisperAddons();
  } catch (err) {
    console.error(`whisper.cpp addon build failed: ${(err as Error).message}`);
    process.exit(1);
  }
}
