/**
 * @module ai/whispercpp/addon.test
 * The whisper.cpp addon itself (native/whisper/addon.cc) on the ggml fixture: it picks the CPU
 * variant from /proc/cpuinfo, runs whisper_full off the JS thread (timers keep firing meanwhile),
 * frees a model safely, and every truncation of a model file is refused by the file check before
 * whisper.cpp could read past its end.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { makeScratchDir } from "../../../test/helpers/audio-fixtures.ts";
import { GGML_FIXTURE_TEXT, writeGgmlFixture } from "../../../test/helpers/ggml-fixture.ts";
import { ensureWhisperAddon } from "../../../test/helpers/whisper-addon.ts";
import { ModelMissingError } from "../asr.ts";
import { loadWhisperAddon, type WhisperAddon } from "./addon.ts";
import { requireAddonFile } from "./addon-file.ts";
import { checkGgmlFile, GgmlFileError } from "./ggml-file.ts";
import { cpuFlags, pickVariant } from "./variants.ts";

const scratch = makeScratchDir();
const file = path.join(scratch.dir, "ggml-model.bin");
writeGgmlFixture(file);
beforeAll(() => ensureWhisperAddon());
afterAll(() => scratch.remove());

const tone = (seconds: number) => Float32Array.from({ length: seconds * 16_000 }, (_, i) => 0.3 * Math.sin(i / 10));

describe("CPU variants", () => {
  test("AVX-512 (with VBMI, VNNI, BF16) → the AVX-512 build; AVX2+FMA+F16C+BMI2 → the AVX2 build; SSE4.2 only → baseline; neither → none; arm64 → its own", () => {
    const avx2 = "flags\t\t: fpu sse2 sse4_2 avx avx2 fma f16c bmi2\n";
    const avx512 = "flags\t\t: fpu sse2 sse4_2 avx avx2 fma f16c bmi2 avx512f avx512dq avx512cd avx512bw avx512vl avx512vbmi avx512_vnni avx512_bf16\n";
    expect(pickVariant("x64", cpuFlags(avx512))?.id).toBe("linux-x64-avx512");
    // Ice Lake: AVX-512 without BF16 → the AVX2 build.
    expect(pickVariant("x64", cpuFlags(avx512.replace(" avx512_bf16", "")))?.id).toBe("linux-x64-avx2");
    expect(pickVariant("x64", cpuFlags(avx2))?.id).toBe("linux-x64-avx2");
    expect(pickVariant("x64", cpuFlags("flags : sse2 sse4_2 avx\n"))?.id).toBe("linux-x64-baseline");
    expect(pickVariant("x64", cpuFlags("flags : sse2\n"))).toBeNull();
    expect(pickVariant("arm64", cpuFlags("Features : fp asimd\n"))?.id).toBe("linux-arm64");
  });
});

describe("the addon", () => {
  test("transcribes off the JS thread: timers keep firing while whisper_full runs", async () => {
    const { addon, variant } = loadWhisperAddon();
    expect(variant).toEqual(pickVariant()!);
    const model = await addon.load(file);
    try {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 5);
      const started = performance.now();
      const result = await addon.transcribe(model, tone(65), { language: "en", translate: false, threads: 1 });
      const ms = performance.now() - started;
      clearInterval(timer);
      expect(result.segments.map((s) => s.text.trim())).toEqual([GGML_FIXTURE_TEXT, GGML_FIXTURE_TEXT, GGML_FIXTURE_TEXT]);
      // Windows move on by the predicted timestamps (<|30.00|>), no text carried between them.
      expect(result.segments.map((s) => s.start_s)).toEqual([0, 30, 60]);
      // A blocked event loop would fire the 5 ms timer once, after the call.
      expect(ticks).toBeGreaterThan(Math.min(10, ms / 5 / 4));
    } finally {
      addon.free(model);
    }
  });

  test("free() while a call runs: the call completes, later calls reject", async () => {
    const { addon } = loadWhisperAddon();
    const model = await addon.load(file);
    const running = addon.transcribe(model, tone(3), { language: "en", translate: false, threads: 1 });
    addon.free(model);
    expect((await running).segments[0]!.text.trim()).toBe(GGML_FIXTURE_TEXT);
    await expect(addon.transcribe(model, tone(3), { language: "en", translate: false, threads: 1 })).rejects.toThrow("freed");
  });

  test("a file that is not a model is refused by whisper.cpp with an error, not a crash", async () => {
    const { addon } = loadWhisperAddon();
    const junk = path.join(scratch.dir, "junk.bin");
    writeFileSync(junk, "not a model at all");
    await expect(addon.load(junk)).rejects.toThrow();
    await expect(addon.load(path.join(scratch.dir, "absent.bin"))).rejects.toThrow();
  });
});

describe("the ggml file check", () => {
  test("the whole fixture passes; an absent file is ModelMissingError", () => {
    expect(checkGgmlFile(file)).toMatchObject({ nVocab: 51864, multilingual: false, nAudioLayers: 1 });
    expect(() => checkGgmlFile(path.join(scratch.dir, "absent.bin"))).toThrow(ModelMissingError);
  });

  test("every truncation point (header, mel filters, vocabulary, tensor headers, tensor data) is GgmlFileError", () => {
    const whole = readFileSync(file);
    const cut = path.join(scratch.dir, "cut.bin");
    const points = [0, 3, 20, 47, 60, 48 + 8 + 1000, 64_400, 64_420, 70_000, 200_000, whole.length >> 1, whole.length - 1];
    for (const n of points) {
      writeFileSync(cut, whole.subarray(0, n));
      expect(() => checkGgmlFile(cut)).toThrow(GgmlFileError);
    }
    const flipped = Buffer.from(whole);
    flipped.writeInt32LE(0x7fffffff, 4); // n_vocab
    writeFileSync(cut, flipped);
    expect(() => checkGgmlFile(cut)).toThrow(GgmlFileError);
  });
});

describe("the baseline build", () => {
  test("has no AVX instruction (no ymm register) and transcribes on its own", async () => {
    const [baseline] = (await ensureWhisperAddon()).filter((f) => f.endsWith("linux-x64-baseline.node"));
    if (process.arch !== "x64") return; // arm64 has one build
    const disassembly = Bun.spawnSync(["objdump", "-d", "--no-show-raw-insn", baseline!]).stdout.toString();
    expect(disassembly.length).toBeGreaterThan(100_000);
    expect(disassembly).not.toContain("%ymm");
    const addon = requireAddonFile("linux-x64-baseline.node") as WhisperAddon;
    const model = await addon.load(file);
    try {
      expect(addon.systemInfo()).not.toContain("AVX2 = 1");
      const result = await addon.transcribe(model, tone(3), { language: "en", translate: false, threads: 1 });
      expect(result.segments.map((s) => s.text.trim())).toEqual([GGML_FIXTURE_TEXT]);
    } finally {
      addon.free(model);
    }
  });
});
