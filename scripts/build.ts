/**
 * `bun run build` → `dist/earshot`: one executable that runs from an empty directory.
 *
 * 1. Bundles `web/` (http/web-assets.ts `buildWebAssets`, the same code that serves it from
 *    source) into `dist/web/`, embedded as the folder `web/` (runtime/embedded.ts reads it),
 *    with a brotli and a gzip copy of each compressible file (http/asset-delivery.ts serves them).
 * 2. Compiles `src/cli.ts` with the inference worker `src/ai/worker.ts` and the WAL checkpoint
 *    worker `src/db/checkpoint-worker.ts` as further entrypoints
 *    (Bun runs a worker inside the binary only when it is an entrypoint), plus the plugins of
 *    runtime/build-plugins.ts (sharp stub, static ONNX Runtime addon, opus-decoder, worker URL,
 *    the whisper.cpp addon variants that scripts/build-whisper.ts builds first, cached).
 *    Migrations need nothing: they are TypeScript in a static index, bundled like any module.
 *
 * Flags: --outfile FILE (default dist/earshot), --target bun-linux-<x64|arm64>[-baseline|-modern]
 * (default: this machine's architecture, and on x64 the `-baseline` build, which runs on any
 * x86-64 CPU, AVX2 or not; Bun fetches that runtime from the npm registry once and caches it),
 * --no-minify, --no-bytecode (smaller file, slower start).
 * Prints the sizes and the time taken. docs/operations.md explains the result.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { onnxRuntimePlugin, opusDecoderPlugin, sharpStubPlugin, whisperAddonPlugin, workerUrlPlugin, type OrtArch } from "../src/runtime/build-plugins.ts";
import { buildWhisperAddons } from "./build-whisper.ts";
import { buildWebAssets } from "../src/http/web-assets.ts";
import { withCompressedVariants } from "../src/http/asset-delivery.ts";

const ROOT = path.resolve(import.meta.dir, "..");
const SRC_DIR = path.join(ROOT, "src");
const MAIN_ENTRY = path.join(SRC_DIR, "cli.ts");
const WORKER_ENTRIES = [path.join(SRC_DIR, "ai", "worker.ts"), path.join(SRC_DIR, "db", "checkpoint-worker.ts")];
const WEB_OUT_DIR = path.join(ROOT, "dist", "web");

/** `bun-linux-x64`, `bun-linux-x64-baseline` (CPUs without AVX2), `bun-linux-arm64`, … */
const TARGET = /^bun-linux-(x64|arm64)(-baseline|-modern)?$/;

const { values: flags } = parseArgs({
  options: {
    outfile: { type: "string", default: path.join(ROOT, "dist", "earshot") }, // relative to the cwd
    // Default: this machine's architecture; x64 gets the baseline runtime (no AVX2 needed).
    target: { type: "string" },
    "no-minify": { type: "boolean", default: false },
    "no-bytecode": { type: "boolean", default: false },
  },
});

if (flags.target === undefined && process.platform !== "linux") throw new Error("Earshot builds Linux binaries: pass --target");
/** The binary must start on older x86-64 CPUs too: the default x64 target is the baseline one. */
const target = flags.target ?? (process.arch === "x64" ? "bun-linux-x64-baseline" : `bun-linux-${process.arch}`);
const targetMatch = TARGET.exec(target);
if (!targetMatch) throw new Error(`--target must match ${TARGET}`);
const arch = targetMatch[1] as OrtArch;
const outfile = path.resolve(flags.outfile);
for (const entry of [MAIN_ENTRY, ...WORKER_ENTRIES]) {
  if (!fs.existsSync(entry)) throw new Error(`entrypoint ${path.relative(ROOT, entry)} is missing`);
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const started = performance.now();

// 1. Web assets → dist/web (rebuilt from scratch so no stale file is embedded).
fs.rmSync(WEB_OUT_DIR, { recursive: true, force: true });
// Each compressible file also as `<file>.br` and `<file>.gz`, so the server never compresses them
// at run time (http/asset-delivery.ts).
const webAssets = withCompressedVariants(await buildWebAssets());
for (const [urlPath, asset] of webAssets) {
  if (!urlPath.startsWith("/assets/")) throw new Error(`web asset ${urlPath} is not under /assets/`);
  await Bun.write(path.join(WEB_OUT_DIR, urlPath.slice("/assets/".length)), asset.body);
}
const webBytes = [...webAssets.values()].reduce((sum, a) => sum + a.body.byteLength, 0);
console.log(`web: ${webAssets.size} files, ${(webBytes / 1024).toFixed(1)} kB → ${path.relative(ROOT, WEB_OUT_DIR)}/`);

// 2. The whisper.cpp addon (scripts/build-whisper.ts; cached, so usually instant). Only this
// machine's architecture can be built here; a cross-built binary gets none and uses transformers.js.
const whisperAddons = arch === process.arch ? await buildWhisperAddons() : [];
if (whisperAddons.length === 0)
  console.warn(`whisper.cpp: no addon for ${arch} (built only for this machine's ${process.arch}); the binary will use transformers.js`);

// 3. The executable.
fs.mkdirSync(path.dirname(outfile), { recursive: true });
const result = await Bun.build({
  entrypoints: [MAIN_ENTRY, ...WORKER_ENTRIES],
  target: "bun",
  format: "esm",
  minify: !flags["no-minify"],
  sourcemap: "linked", // embedded (zstd); stack traces point at src/
  // Parsing moves to build time: start to first HTTP 200 ~60 ms instead of ~150 ms, +9 MB.
  bytecode: !flags["no-bytecode"],
  // The whisper.cpp plugin comes before workerUrlPlugin, which also loads src/ files.
  plugins: [sharpStubPlugin, onnxRuntimePlugin(arch), opusDecoderPlugin, whisperAddonPlugin(whisperAddons), workerUrlPlugin(SRC_DIR, WORKER_ENTRIES)],
  compile: {
    target: target as Bun.Build.CompileTarget,
    outfile,
    // Bun embeds a folder under its base name: dist/web → /$bunfs/root/web (runtime/embedded.ts).
    assets: webAssets.size > 0 ? [WEB_OUT_DIR] : [],
    // Configuration comes from the environment and flags only (DESIGN §1); a stray .env or
    // bunfig.toml in the working directory must not change a deployed binary.
    autoloadDotenv: false,
    autoloadBunfig: false,
    autoloadTsconfig: false,
    autoloadPackageJson: false,
  },
  throw: false,
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
for (const log of result.logs) console.warn(log);
// The sourcemaps are embedded in the binary; the copies Bun also writes beside it are not needed.
for (const output of result.outputs) {
  if (output.kind === "sourcemap") fs.rmSync(output.path, { force: true });
}

const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`binary: ${path.relative(process.cwd(), outfile)} ${mb(fs.statSync(outfile).size)} (${target}) in ${seconds} s`);
