/**
 * @module bench/asr-bench-setup
 * What the side-by-side transcription bench (bench/asr-side-by-side.ts) needs, made once and cached
 * in a work folder: whisper.cpp's `whisper-cli` built from the source inside the pinned
 * `nodejs-whisper@0.3.1` package, the 10/30/120 s espeak-ng clips, and random-weight models of the
 * real dimensions (ONNX for transformers.js, ggml for whisper.cpp) from the team's generator.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";

/** The source whisper.cpp is built from: the same tree as the whisper.cpp engine's (issue 27). */
const NODEJS_WHISPER = "nodejs-whisper@0.3.1";
const CLIP_SECONDS = [10, 30, 120];
const TEXT = `Thank you for asking about our service. The delivery was late by two days, and the driver did not call
before arriving. The product itself works well, the battery lasts a full week, and the screen is bright enough
outdoors. I would like the app to show the order status more clearly, and to send a message when the parcel
leaves the warehouse. Support answered my email quickly and was friendly. Overall I am satisfied, but the
price went up since last year, so I am comparing offers from other shops before I renew my subscription.`;

export type BenchSetup = { work: string; modelsDir: string; clips: string[]; whisperCli: string };

/** Runs a command, inheriting output; throws with its name when it fails. */
function sh(cmd: string[], opts: { cwd?: string } = {}): void {
  const r = Bun.spawnSync(cmd, { cwd: opts.cwd, stdout: "inherit", stderr: "inherit" });
  if (r.exitCode !== 0) throw new Error(`${cmd.slice(0, 3).join(" ")} … failed (exit ${r.exitCode})`);
}

/** whisper.cpp's source: node_modules/nodejs-whisper when installed, else the npm tarball. */
function whisperSource(work: string): string {
  const installed = path.resolve(import.meta.dir, "../node_modules/nodejs-whisper/cpp/whisper.cpp");
  if (existsSync(path.join(installed, "CMakeLists.txt"))) return installed;
  const unpacked = path.join(work, "nodejs-whisper");
  if (!existsSync(path.join(unpacked, "package/cpp/whisper.cpp/CMakeLists.txt"))) {
    mkdirSync(unpacked, { recursive: true });
    sh(["npm", "pack", "--silent", NODEJS_WHISPER], { cwd: unpacked });
    const tarball = readdirSync(unpacked).find((f) => f.endsWith(".tgz"))!;
    sh(["tar", "xzf", tarball], { cwd: unpacked });
  }
  return path.join(unpacked, "package/cpp/whisper.cpp");
}

/** `whisper-cli` built with cmake (Release, no SDL/curl) in `<work>/whisper.cpp/build`. */
function buildWhisperCli(work: string): string {
  const tree = path.join(work, "whisper.cpp");
  const cli = path.join(tree, "build/bin/whisper-cli");
  if (existsSync(cli)) return cli;
  if (!existsSync(tree)) cpSync(whisperSource(work), tree, { recursive: true });
  console.log(`building whisper-cli in ${tree} (a few minutes)`);
  sh(["cmake", "-B", "build", "-DCMAKE_BUILD_TYPE=Release", "-DWHISPER_SDL2=OFF", "-DWHISPER_CURL=OFF"], { cwd: tree });
  sh(["cmake", "--build", "build", "-j2", "--target", "whisper-cli"], { cwd: tree });
  return cli;
}

/** 16 kHz mono 16-bit clips of exactly 10, 30, 120 s (espeak-ng reads TEXT repeated; sox trims/pads). */
function makeClips(dir: string): string[] {
  const clips = CLIP_SECONDS.map((s) => path.join(dir, `speech-${s}s.wav`));
  if (clips.every((c) => existsSync(c))) return clips;
  mkdirSync(dir, { recursive: true });
  const long = path.join(dir, "long.wav");
  sh(["espeak-ng", "-v", "en-us", "-s", "165", "-w", long, Array(8).fill(TEXT.replaceAll("\n", " ")).join(" ")]);
  CLIP_SECONDS.forEach((s, i) =>
    sh(["sox", long, "-r", "16000", "-c", "1", "-b", "16", clips[i]!, "trim", "0", `${s}`, "pad", "0", `${s}`, "trim", "0", `${s}`]),
  );
  rmSync(long, { force: true });
  return clips;
}

/** A python with numpy, onnx and onnxruntime: the system's, else a venv in `work` (local wheels). */
function python(work: string): string {
  const has = (py: string) => existsSync(py) && Bun.spawnSync([py, "-c", "import numpy, onnx, onnxruntime"]).exitCode === 0;
  const system = Bun.which("python3") ?? "python3";
  if (has(system)) return system;
  const venv = path.join(work, "venv/bin/python");
  if (!has(venv)) {
    sh(["python3", "-m", "venv", path.join(work, "venv")]);
    sh([venv, "-m", "pip", "install", "-q", "numpy", "onnx", "onnxruntime"]);
  }
  return venv;
}

/**
 * Makes (or finds, cached) everything in `work`: models under `<work>/models`, clips under
 * `<work>/audio`, `whisper-cli` (only when `needCli`). `shared` is the team's shared folder
 * (bench/asr/make_models.py and the tiny fixture's tokenizer files).
 * @throws Error naming the step that failed (npm pack, cmake, espeak-ng, sox, python).
 */
export async function prepareBench(opts: { work: string; shared: string; sizes: string[]; tokens: number; needCli: boolean }): Promise<BenchSetup> {
  const { work } = opts;
  mkdirSync(work, { recursive: true });
  const modelsDir = path.join(work, "models");
  for (const size of opts.sizes) {
    if (existsSync(path.join(modelsDir, `whisper-${size}.en-rand-q8`)) && existsSync(path.join(modelsDir, `ggml-${size}.en-rand-f16.bin`))) continue;
    console.log(`making random ${size}.en models (real dimensions, ${opts.tokens} tokens per window) in ${modelsDir}`);
    sh([
      python(work),
      path.join(opts.shared, "bench/asr/make_models.py"),
      "--size",
      size,
      "--out",
      modelsDir,
      "--tokens",
      String(opts.tokens),
      "--fixture",
      path.join(opts.shared, "models/fixture/whisper-tiny-random"),
    ]);
  }
  const clips = makeClips(path.join(work, "audio"));
  const whisperCli = opts.needCli ? buildWhisperCli(work) : "";
  return { work, modelsDir, clips, whisperCli };
}
