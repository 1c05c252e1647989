/**
 * @module ai/whispercpp/engine.test
 * The whisper.cpp engine (issue 27) through the real inference worker and the real addon, on the
 * steered random ggml fixture (test/helpers/ggml-fixture.ts: any audio window → "This is a
 * fixture transcript." from 0 to 30 s of that window). The models folder holds ONLY the ggml file,
 * so a transcript proves whisper.cpp ran: transformers.js would find no ONNX files.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createAsrEngine } from "../asr-engine.ts";
import { createInferenceClient, InferenceError } from "../inference-client.ts";
import { FIXTURE_TRANSCRIPT, makeScratchDir, speechWav, toneWav } from "../../../test/helpers/audio-fixtures.ts";
import { GGML_FIXTURE_DETECTED_LANGUAGE, writeGgmlFixture } from "../../../test/helpers/ggml-fixture.ts";
import { pauseClip } from "../../../test/helpers/pause-clips.ts";
import { ensureWhisperAddon } from "../../../test/helpers/whisper-addon.ts";

const scratch = makeScratchDir();
const modelsDir = path.join(scratch.dir, "models");
const EN = "ggml-en-random";
const MULTI = "ggml-multi-random";
mkdirSync(path.join(modelsDir, EN), { recursive: true });
mkdirSync(path.join(modelsDir, MULTI), { recursive: true });
writeGgmlFixture(path.join(modelsDir, EN, "ggml-model.bin"));
writeGgmlFixture(path.join(modelsDir, MULTI, "ggml-model.bin"), { multilingual: true });

const clientFor = (asrModel: string, asrEngine: "auto" | "whispercpp" | "transformers" = "auto", dir = modelsDir) =>
  createInferenceClient({ modelsDir: dir, asrModel, sentimentModel: "none", threads: 1, asrEngine });
const en = clientFor(EN);
const multi = clientFor(MULTI, "whispercpp");
const late = pauseClip(scratch.dir, "late", [{ silenceS: 5 }, { say: "the checkout was slow" }, { silenceS: 2 }], 0.004);

beforeAll(() => ensureWhisperAddon());
afterAll(async () => {
  await Promise.all([en.close(), multi.close()]);
  scratch.remove();
});

const codeOf = (promise: Promise<unknown>): Promise<string | null> =>
  promise.then(
    () => null,
    (e: unknown) => (e instanceof InferenceError ? e.code : String(e)),
  );

describe("auto engine with a ggml file", () => {
  test("speech → the fixture's transcript from whisper.cpp, one segment inside the recording", async () => {
    const result = await en.transcribe(await speechWav(scratch.dir, "hello there"));
    expect(result.text).toBe(FIXTURE_TRANSCRIPT);
    expect(result.language).toBe("en");
    expect(result.segments).toHaveLength(1);
    const [segment] = result.segments;
    expect(segment!.text).toBe(FIXTURE_TRANSCRIPT);
    expect(segment!.start_s).toBeGreaterThanOrEqual(0);
    // The fixture's closing timestamp is 30 s; the segment is clamped to the recording.
    expect(segment!.end_s).toBeLessThanOrEqual(result.durationS);
    expect(segment!.end_s).toBeGreaterThan(segment!.start_s);
  });

  test("speech after a 5 s pause: the segment starts at the speech in the ORIGINAL recording", async () => {
    const result = await en.transcribe(new Uint8Array(readFileSync(late.file)));
    expect(result.text).toBe(FIXTURE_TRANSCRIPT);
    const words = late.words[0]!;
    expect(result.segments[0]!.start_s).toBeGreaterThan(words[0] - 0.6);
    expect(result.segments[0]!.start_s).toBeLessThan(words[0] + 0.1);
    expect(result.segments[0]!.end_s).toBeLessThanOrEqual(result.durationS);
  });

  test("silence → empty text, no segments, language still en", async () => {
    const result = await en.transcribe(toneWav({ seconds: 3, rateHz: 16_000, amplitude: 0 }));
    expect(result).toMatchObject({ text: "", segments: [], language: "en" });
  });

  test("70 s of sound: whisper.cpp windows it itself — a segment per 30 s window, in order", async () => {
    const result = await en.transcribe(toneWav({ seconds: 70, rateHz: 16_000, amplitude: 0.3 }), { maxDurationS: 120 });
    expect(result.durationS).toBeCloseTo(70, 2);
    expect(result.segments).toEqual([
      { start_s: 0, end_s: 30, text: FIXTURE_TRANSCRIPT },
      { start_s: 30, end_s: 60, text: FIXTURE_TRANSCRIPT },
      { start_s: 60, end_s: 70, text: FIXTURE_TRANSCRIPT },
    ]);
    expect(result.text).toBe([FIXTURE_TRANSCRIPT, FIXTURE_TRANSCRIPT, FIXTURE_TRANSCRIPT].join(" "));
  });

  test("an English-only ggml model refuses a German link", async () => {
    expect(await codeOf(en.transcribe(await speechWav(scratch.dir), { language: "de" }))).toBe("LANGUAGE_UNSUPPORTED");
  });
});

describe("multilingual ggml model", () => {
  test("no language asked → whisper.cpp detects it; a translation is produced for non-English speech", async () => {
    const result = await multi.transcribe(await speechWav(scratch.dir), { translate: true });
    expect(result.language).toBe(GGML_FIXTURE_DETECTED_LANGUAGE);
    expect(result.text).toBe(FIXTURE_TRANSCRIPT);
    expect(result.translation).toBe(FIXTURE_TRANSCRIPT);
  });

  test("an asked language is kept; English needs no translation; an unknown code is refused", async () => {
    const fr = await multi.transcribe(await speechWav(scratch.dir), { language: "fr-CA" });
    expect(fr.language).toBe("fr");
    const english = await multi.transcribe(await speechWav(scratch.dir), { language: "en", translate: true });
    expect(english.translation).toBeNull();
    expect(await codeOf(multi.transcribe(await speechWav(scratch.dir), { language: "xx" }))).toBe("LANGUAGE_UNSUPPORTED");
  });
});

describe("missing and damaged files", () => {
  test("whispercpp forced without a ggml file → MODEL_MISSING; transformers forced on a ggml-only folder → MODEL_MISSING", async () => {
    const forcedCpp = clientFor("no-such-model", "whispercpp");
    const forcedOnnx = clientFor(EN, "transformers");
    try {
      expect(await codeOf(forcedCpp.transcribe(await speechWav(scratch.dir)))).toBe("MODEL_MISSING");
      expect(await codeOf(forcedOnnx.transcribe(await speechWav(scratch.dir)))).toBe("MODEL_MISSING");
    } finally {
      await Promise.all([forcedCpp.close(), forcedOnnx.close()]);
    }
  });

  test("a truncated ggml file → MODEL_MISSING naming the damage, and the worker lives on", async () => {
    const dir = path.join(scratch.dir, "damaged");
    const model = path.join(dir, "cut");
    mkdirSync(model, { recursive: true });
    const whole = readFileSync(path.join(modelsDir, EN, "ggml-model.bin"));
    await Bun.write(path.join(model, "ggml-model.bin"), whole.subarray(0, whole.length - 1000));
    const client = clientFor("cut", "whispercpp", dir);
    try {
      const err = await client.transcribe(await speechWav(scratch.dir)).then(
        () => null,
        (e: unknown) => e as InferenceError,
      );
      expect(err?.code).toBe("MODEL_MISSING");
      expect(err?.message).toContain("damaged");
      // Same worker, repaired file: it transcribes (the failed load was not kept).
      await Bun.write(path.join(model, "ggml-model.bin"), whole);
      expect((await client.transcribe(await speechWav(scratch.dir))).text).toBe(FIXTURE_TRANSCRIPT);
    } finally {
      await client.close();
    }
  });
});

describe("the engine in this thread", () => {
  test("unload() frees the weights; the next call loads them again and transcribes the same", async () => {
    const asr = createAsrEngine(modelsDir, EN, 1, "off", "auto");
    expect(asr.engineFor()).toBe("whispercpp");
    const pcm = Float32Array.from({ length: 3 * 16_000 }, (_, i) => 0.3 * Math.sin(i / 10));
    const first = await asr.transcribe(pcm);
    expect(first.loadMs).toBeGreaterThan(0);
    expect((await asr.transcribe(pcm)).loadMs).toBe(0);
    asr.unload();
    const again = await asr.transcribe(pcm);
    expect(again.loadMs).toBeGreaterThan(0);
    expect(again.text).toBe(first.text);
    asr.unload();
  });
});
