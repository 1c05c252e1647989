/**
 * `earshot models fetch` / `earshot models verify` as real processes (docs/models.md): from a
 * local folder (`--from`, the air-gapped path) and from an HTTP server in the hub's URL layout
 * (EARSHOT_MODELS_HUB_URL) that cuts a transfer short, so the resume is exercised; sha256
 * checks against the manifest and against hashes recorded on first fetch; and the fetched
 * models then serve `earshot transcribe` and `earshot analyse`; a ggml file fetched from its own
 * repo (a file's `from`) makes `earshot transcribe` use whisper.cpp.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LOCK_FILE_NAME } from "../../src/model-store/files.ts";
import { writeGgmlFixture } from "../helpers/ggml-fixture.ts";
import { FIXTURE_MODELS_DIR, FIXTURE_REVISION, fixtureManifest, startTestHub, type TestHub } from "../helpers/model-hub.ts";
import { ensureWhisperAddon } from "../helpers/whisper-addon.ts";
import { freePort, runCli } from "../helpers/process.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "earshot-models-"));
const manifestFile = path.join(scratch, "manifest.json");
const dataDir = path.join(scratch, "data");
let hub: TestHub;

const earshot = (args: string[], env: Record<string, string> = {}) => runCli(args, { dataDir, env });
const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

beforeAll(async () => {
  writeFileSync(manifestFile, JSON.stringify(fixtureManifest()));
  hub = await startTestHub();
});
afterAll(() => {
  hub.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe("models fetch --from DIR (air-gapped)", () => {
  const modelsDir = path.join(scratch, "from-dir");

  test("copies and checks every file, records the unpinned one, and verify passes", async () => {
    const r = await earshot(["models", "fetch", "--from", FIXTURE_MODELS_DIR, "--manifest", manifestFile, "--models-dir", modelsDir, "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const files = jsonLines(r.stdout);
    expect(files).toHaveLength(12); // 8 required Whisper files + 4 sentiment files
    expect(files.every((f) => f.action === "copied")).toBe(true);
    expect(files.find((f) => f.path === "tokenizer.json" && f.model === "whisper-tiny-random").checkedAgainst).toBe("manifest");
    expect(files.find((f) => f.path === "special_tokens_map.json").checkedAgainst).toBe("recorded-now");
    expect(existsSync(path.join(modelsDir, "whisper-tiny-random", "onnx", "encoder_model.onnx"))).toBe(false); // optional
    const lock = JSON.parse(readFileSync(path.join(modelsDir, LOCK_FILE_NAME), "utf8"));
    expect(Object.keys(lock.files)).toEqual(["whisper-tiny-random/special_tokens_map.json"]);
    expect(lock.files["whisper-tiny-random/special_tokens_map.json"]).toMatchObject({
      size: 1717,
      sha256: "7da611d517fe29e77335b8d8384e71795fb7b37cbf95bdc3b5252fa7e09dd1f8",
    });

    const v = await earshot(["models", "verify", "--manifest", manifestFile, "--models-dir", modelsDir]);
    expect(v.code).toBe(0);
    expect(v.stdout).toContain("All installed model files are intact.");
  });

  test("the fetched models serve `earshot transcribe` and `earshot analyse`", async () => {
    const wav = path.join(scratch, "hello.wav");
    expect(Bun.spawnSync(["espeak-ng", "-w", wav, "hello there"]).exitCode).toBe(0);
    const env = { EARSHOT_MODELS_DIR: modelsDir, EARSHOT_ASR_MODEL: "whisper-tiny-random", EARSHOT_SENTIMENT_MODEL: "tiny-sentiment-3class" };
    const t = await earshot(["transcribe", wav, "--json"], env);
    expect(t.code).toBe(0);
    expect(JSON.parse(t.stdout).text).toBe("This is a fixture transcript.");
    const a = await earshot(["analyse", "--json", "The checkout page keeps crashing when I pay with my card"], env);
    expect(a.code).toBe(0);
    expect(JSON.parse(a.stdout).engine.sentiment).toBe("transformer:tiny-sentiment-3class");
  });

  test("verify exits 1 for a changed file, for a changed recorded file, and for a missing one", async () => {
    const tokenizer = path.join(modelsDir, "whisper-tiny-random", "tokenizer.json");
    appendFileSync(tokenizer, " ");
    let v = await earshot(["models", "verify", "--manifest", manifestFile, "--models-dir", modelsDir]);
    expect(v.code).toBe(1);
    expect(v.stdout).toMatch(/mismatch\s+tokenizer\.json \(manifest sha256\) — size is 2128495 bytes, expected 2128494/);

    const special = path.join(modelsDir, "whisper-tiny-random", "special_tokens_map.json");
    const original = readFileSync(special);
    writeFileSync(special, Buffer.from(original).fill(0x20, 0, 1));
    v = await earshot(["models", "verify", "--manifest", manifestFile, "--models-dir", modelsDir, "--json"]);
    expect(v.code).toBe(1);
    const report = JSON.parse(v.stdout);
    const whisper = report.models.find((m: { id: string }) => m.id === "whisper-tiny-random");
    expect(whisper.files.find((f: { path: string }) => f.path === "special_tokens_map.json")).toMatchObject({ status: "mismatch", checkedAgainst: "recorded" });

    rmSync(path.join(modelsDir, "tiny-sentiment-3class", "onnx", "model.onnx"));
    v = await earshot(["models", "verify", "--manifest", manifestFile, "--models-dir", modelsDir, "--model", "tiny-sentiment-3class"]);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain("missing");

    // fetch repairs what it can check: the changed tokenizer and the missing model file come back.
    const r = await earshot(["models", "fetch", "--from", FIXTURE_MODELS_DIR, "--manifest", manifestFile, "--models-dir", modelsDir, "--json"]);
    expect(r.code).toBe(0);
    const actions = Object.fromEntries(jsonLines(r.stdout).map((f) => [`${f.model}/${f.path}`, f.action]));
    expect(actions["whisper-tiny-random/tokenizer.json"]).toBe("copied");
    expect(actions["tiny-sentiment-3class/onnx/model.onnx"]).toBe("copied");
    expect(actions["whisper-tiny-random/config.json"]).toBe("present");
  });

  test("an empty models directory fails verify; an unknown --model fails fetch", async () => {
    const empty = path.join(scratch, "empty");
    const v = await earshot(["models", "verify", "--manifest", manifestFile, "--models-dir", empty]);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain("No model is installed");
    const f = await earshot(["models", "fetch", "--model", "nope", "--from", FIXTURE_MODELS_DIR, "--manifest", manifestFile, "--models-dir", empty]);
    expect(f.code).not.toBe(0);
    expect(f.stderr).toContain("nope is not in the manifest");
  });
});

describe("models fetch from the hub (EARSHOT_MODELS_HUB_URL)", () => {
  const modelsDir = path.join(scratch, "from-hub");

  test("downloads with --all-files, resuming a cut transfer with Range, and verifies", async () => {
    hub.cutNextTransfer("whisper-tiny-random/tokenizer.json", 900_000);
    hub.cutNextTransfer("whisper-tiny-random/onnx/decoder_model_merged.onnx", 100_000);
    const before = hub.requests.length;
    const r = await earshot(["models", "fetch", "--manifest", manifestFile, "--models-dir", modelsDir, "--all-files"], { EARSHOT_MODELS_HUB_URL: hub.url });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`from ${hub.url}`);
    expect(r.stdout).toMatch(/downloaded\s+whisper-tiny-random\/onnx\/encoder_model\.onnx \(0\.0 MB, sha256 matches the manifest\)/);
    expect(r.stdout).toContain("no published sha256: size and sha256 recorded");
    // The hub sends 900 000 bytes and drops the socket; how many arrive before the drop varies.
    const resumedAt = Number(/resuming whisper-tiny-random\/tokenizer\.json from (\d+\.\d) MB/.exec(r.stderr)?.[1]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThanOrEqual(0.9);
    const tokenizerRequests = hub.requests.slice(before).filter((q) => q.path.endsWith(`/whisper-tiny-random/resolve/${FIXTURE_REVISION}/tokenizer.json`));
    expect(tokenizerRequests.map((q) => q.status)).toEqual([200, 206]);
    const offset = Number(/^bytes=(\d+)-$/.exec(tokenizerRequests[1]!.range ?? "")?.[1]);
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(900_000);
    expect(
      readFileSync(path.join(modelsDir, "whisper-tiny-random", "tokenizer.json")).equals(
        readFileSync(path.join(FIXTURE_MODELS_DIR, "whisper-tiny-random", "tokenizer.json")),
      ),
    ).toBe(true);
    expect(existsSync(path.join(modelsDir, "whisper-tiny-random", "tokenizer.json.part"))).toBe(false);
    expect((await earshot(["models", "verify", "--manifest", manifestFile, "--models-dir", modelsDir])).code).toBe(0);

    // Weights come through the hub's redirect to its file storage, as on huggingface.co.
    const encoder = hub.requests.slice(before).filter((q) => q.path.includes("/whisper-tiny-random/") && q.path.endsWith("/onnx/encoder_model.onnx"));
    expect(encoder.map((q) => [q.status, q.path])).toEqual([
      [302, `/whisper-tiny-random/resolve/${FIXTURE_REVISION}/onnx/encoder_model.onnx`],
      [200, "/lfs/whisper-tiny-random/-/onnx/encoder_model.onnx"],
    ]);
    // A cut weights file resumes through the redirect: the Range header reaches the storage.
    const decoder = hub.requests.slice(before).filter((q) => q.path.includes("/whisper-tiny-random/") && q.path.endsWith("/onnx/decoder_model_merged.onnx"));
    expect(decoder.map((q) => [q.status, q.path.startsWith("/lfs/"), q.range !== null])).toEqual([
      [302, false, false],
      [200, true, false],
      [302, false, true],
      [206, true, true],
    ]);

    // A second fetch finds everything in place and downloads nothing.
    const again = hub.requests.length;
    const r2 = await earshot(["models", "fetch", "--manifest", manifestFile, "--models-dir", modelsDir, "--all-files", "--json"], {
      EARSHOT_MODELS_HUB_URL: hub.url,
    });
    expect(r2.code).toBe(0);
    expect(jsonLines(r2.stdout).every((f) => f.action === "present")).toBe(true);
    expect(hub.requests.length).toBe(again);
  });

  test("bytes that differ from the manifest's sha256 are refused and discarded", async () => {
    const dir = path.join(scratch, "corrupt");
    hub.corrupt("tiny-sentiment-3class/onnx/model.onnx");
    const r = await earshot(["models", "fetch", "--manifest", manifestFile, "--models-dir", dir, "--model", "tiny-sentiment-3class"], {
      EARSHOT_MODELS_HUB_URL: hub.url,
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("tiny-sentiment-3class/onnx/model.onnx");
    expect(r.stderr).toContain("expected 9068117d0edcbe7a17d288abe8a2a020b363856a9e419697672adb71561839e1");
    expect(existsSync(path.join(dir, "tiny-sentiment-3class", "onnx", "model.onnx"))).toBe(false);
    expect(existsSync(path.join(dir, "tiny-sentiment-3class", "onnx", "model.onnx.part"))).toBe(false);
    // Its three good files were fetched, but the model folder appears only when every file is.
    expect(existsSync(path.join(dir, "tiny-sentiment-3class"))).toBe(false);
    expect(existsSync(path.join(dir, ".staging", "tiny-sentiment-3class", "config.json"))).toBe(true);
    const fromDir = await earshot([
      "models",
      "fetch",
      "--manifest",
      manifestFile,
      "--models-dir",
      dir,
      "--model",
      "tiny-sentiment-3class",
      "--from",
      FIXTURE_MODELS_DIR,
    ]);
    expect(fromDir.code).toBe(0);
    expect(existsSync(path.join(dir, "tiny-sentiment-3class", "onnx", "model.onnx"))).toBe(true);
    expect(existsSync(path.join(dir, ".staging"))).toBe(false);
  });

  test("an unreachable hub: a clear cause, the offline alternatives, and no half-installed model folder", async () => {
    const dir = path.join(scratch, "offline");
    // A port nothing listens on: the connection is refused, as on a machine without network.
    const closed = `http://127.0.0.1:${await freePort()}`;
    const r = await earshot(["models", "fetch", "--manifest", manifestFile, "--models-dir", dir], { EARSHOT_MODELS_HUB_URL: closed });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("request failed");
    expect(r.stderr).toContain("--from DIR");
    expect(r.stderr).toContain("EARSHOT_MODELS_HUB_URL");
    expect(existsSync(path.join(dir, "whisper-tiny-random"))).toBe(false);
    expect(existsSync(path.join(dir, "tiny-sentiment-3class"))).toBe(false);
  }, 30_000);
});

describe("a ggml file from another hub repo (whisper.cpp's weights beside the ONNX files)", () => {
  test("fetch downloads it from its own repo, revision and name, installs it as <model>/ggml-model.bin, and transcribe uses whisper.cpp", async () => {
    await ensureWhisperAddon();
    // The hub serves whisper.cpp's repo; the model's own repo is not even there.
    const hubRoot = path.join(scratch, "ggml-hub");
    mkdirSync(path.join(hubRoot, "ggml-org-fixture"), { recursive: true });
    const ggml = path.join(hubRoot, "ggml-org-fixture", "ggml-fixture.en.bin");
    writeGgmlFixture(ggml);
    const bytes = readFileSync(ggml);
    const ggmlHub = await startTestHub(hubRoot);
    try {
      const manifest = {
        schema_version: 1,
        models: [
          {
            id: "whisper-ggml-only",
            task: "automatic-speech-recognition",
            default: true,
            source: "https://example.invalid/whisper-ggml-only",
            revision: FIXTURE_REVISION,
            license: "MIT",
            files: [
              {
                path: "ggml-model.bin",
                size: bytes.length,
                sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex"),
                verify: "sha256",
                from: { repo: "ggml-org-fixture", revision: "5359861c739e955e79d9a303bcbc70fb988958b1", path: "ggml-fixture.en.bin" },
              },
            ],
          },
        ],
      };
      const file = path.join(scratch, "ggml-manifest.json");
      writeFileSync(file, JSON.stringify(manifest));
      const dir = path.join(scratch, "ggml-models");
      const r = await earshot(["models", "fetch", "--manifest", file, "--models-dir", dir], { EARSHOT_MODELS_HUB_URL: ggmlHub.url });
      expect(r.code, r.stderr).toBe(0);
      expect(ggmlHub.requests.map((q) => q.path)).toEqual(["/ggml-org-fixture/resolve/5359861c739e955e79d9a303bcbc70fb988958b1/ggml-fixture.en.bin"]);
      expect(readFileSync(path.join(dir, "whisper-ggml-only", "ggml-model.bin")).equals(bytes)).toBe(true);

      const wav = path.join(scratch, "ggml-hello.wav");
      expect(Bun.spawnSync(["espeak-ng", "-w", wav, "hello there"]).exitCode).toBe(0);
      const env = { EARSHOT_MODELS_DIR: dir, EARSHOT_ASR_MODEL: "whisper-ggml-only" };
      const t = await earshot(["transcribe", wav, "--json"], env);
      expect(t.code, t.stderr).toBe(0);
      expect(JSON.parse(t.stdout).text).toBe("This is a fixture transcript.");
      // whisper.cpp's own log lines (model load, timings) only at debug level.
      expect(t.stderr).not.toContain("whisper_");
      const debug = await earshot(["transcribe", wav, "--json"], { ...env, EARSHOT_LOG_LEVEL: "debug" });
      expect(debug.stderr).toContain("whisper_model_load");
    } finally {
      ggmlHub.stop();
    }
  }, 60_000);
});
