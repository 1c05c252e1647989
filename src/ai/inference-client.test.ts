import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, rmSync } from "node:fs";
import path from "node:path";
import { AudioDecodeError } from "./audio.ts";
import { createInferenceClient, InferenceError, type TranscribeResult } from "./inference-client.ts";
import {
  FIXTURE_ASR_MODEL,
  FIXTURE_MODELS_DIR,
  HEARING_ASR_MODEL,
  HEARING_MODELS_DIR,
  makeScratchDir,
  oggOpusOf,
  speechWav,
  toneWav,
  WEBM_FIXTURE_DURATION_S,
  wavDurationS,
  webmFixture,
} from "../../test/helpers/audio-fixtures.ts";
import { expectHeard } from "../../test/helpers/hearing.ts";
import { pauseClip } from "../../test/helpers/pause-clips.ts";

// The hearing Whisper fixture: the transcripts below are the words spoken, not a fixed sentence.
const scratch = makeScratchDir();
const client = createInferenceClient({
  modelsDir: HEARING_MODELS_DIR,
  asrModel: HEARING_ASR_MODEL,
  sentimentModel: "tiny-sentiment-3class",
});
afterAll(async () => {
  await client.close();
  scratch.remove();
});

const rejectionOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => null,
    (e: unknown) => e,
  );

describe("transcribe", () => {
  test("WAV speech → the spoken words, its duration and timings", async () => {
    const wav = await speechWav(scratch.dir, "the price is too high");
    const result = await client.transcribe(wav);
    expectHeard(result.text, "the price is too high");
    expect(result.durationS).toBeCloseTo(wavDurationS(wav), 2);
    for (const ms of Object.values(result.timings)) expect(ms).toBeGreaterThanOrEqual(0);
    expect(result.timings.asrMs).toBeGreaterThan(0);
  });

  test("Ogg/Opus and Chromium WebM/Opus speech → the spoken words", async () => {
    const wav = await speechWav(scratch.dir, "delivery was fast");
    const ogg = await client.transcribe(await oggOpusOf(scratch.dir, wav), { priority: "live" });
    expectHeard(ogg.text, "delivery was fast");
    expect(Math.abs(ogg.durationS - wavDurationS(wav))).toBeLessThan(0.03);

    const webm = await client.transcribe(await webmFixture());
    expectHeard(webm.text, "hello there");
    expect(Math.abs(webm.durationS - WEBM_FIXTURE_DURATION_S)).toBeLessThan(0.1);
  });

  test("silence → empty text; the model is loaded only once", async () => {
    const result = await client.transcribe(toneWav({ seconds: 2, rateHz: 48_000, channels: 2, amplitude: 0 }));
    expect(result.text).toBe("");
    expect(result.durationS).toBeCloseTo(2, 3);
    expect(result.timings.loadMs).toBe(0);
  });

  test("audio longer than Whisper's 30 s window is transcribed in windows, not cut", async () => {
    // Without the voice-activity step, which would cut the pause and leave one short window.
    const clip = pauseClip(scratch.dir, "long", [{ say: "refund my order please" }, { silenceS: 30 }, { say: "the app is broken" }]);
    const own = createInferenceClient({ modelsDir: HEARING_MODELS_DIR, asrModel: HEARING_ASR_MODEL, sentimentModel: "none", vad: "off" });
    try {
      const result = await own.transcribe(new Uint8Array(await Bun.file(clip.file).arrayBuffer()));
      expectHeard(result.text, "refund my order please");
      expectHeard(result.text, "the app is broken");
      expect(result.durationS).toBeGreaterThan(30);
    } finally {
      await own.close();
    }
  });

  test("empty or garbage audio → AudioDecodeError, and the worker keeps serving", async () => {
    const empty = await rejectionOf(client.transcribe(new Uint8Array(0)));
    expect(empty).toBeInstanceOf(AudioDecodeError);
    expect((empty as AudioDecodeError).reason).toContain("empty");
    const garbage = await rejectionOf(client.transcribe(crypto.getRandomValues(new Uint8Array(3000))));
    expect(garbage).toBeInstanceOf(AudioDecodeError);
    expectHeard((await client.transcribe(await speechWav(scratch.dir))).text, "hello there");
  });

  test("live requests overtake queued batch requests", async () => {
    const wav = await speechWav(scratch.dir);
    const finished: string[] = [];
    const track = (name: string, p: Promise<TranscribeResult>) => p.then(() => finished.push(name));
    await Promise.all([
      track("batch1", client.transcribe(wav, { priority: "batch" })),
      track("batch2", client.transcribe(wav)),
      track("batch3", client.transcribe(wav, { priority: "batch" })),
      track("live", client.transcribe(wav, { priority: "live" })),
    ]);
    expect(finished.indexOf("live")).toBeLessThan(finished.indexOf("batch2"));
    expect(finished.filter((name) => name.startsWith("batch"))).toEqual(["batch1", "batch2", "batch3"]);
  });
});

describe("analyse", () => {
  const complaint = "The checkout page keeps crashing when I pay with my card";

  test("uses the sentiment model from the models directory and reports it", async () => {
    const result = await client.analyse(complaint, { evaluatorConfig: { custom_fields: ["feature"] } });
    expect(result.engine.sentiment).toBe("transformer:tiny-sentiment-3class");
    expect(result.ai_insights.sentiment).toBe("negative");
    expect(result.ai_insights.sentiment_score).toBeLessThan(0);
    expect(result.ai_insights.key_topics.length).toBeGreaterThan(0);
    expect(typeof result.ai_insights.summary).toBe("string");
    expect(typeof result.ai_insights.actionable).toBe("boolean");
    expect(result.clarity).toBeGreaterThanOrEqual(0);
    expect(result.clarity).toBeLessThanOrEqual(1);
    expect(Object.keys(result.custom_fields)).toEqual(["feature"]);
    expect(result.follow_up_questions).toEqual([]); // probing was not asked for
  });

  test("vague answers get follow-up questions when probing is on", async () => {
    const result = await client.analyse(
      "it was ok i guess",
      {
        enableDynamicProbing: true,
        evaluatorConfig: { clarity_threshold: 0.9, max_follow_ups: 2 },
        prompt: "What should we improve?",
      },
      { priority: "live" },
    );
    expect(result.clarity).toBeLessThan(0.9);
    expect(result.follow_up_questions.length).toBeGreaterThanOrEqual(1);
    expect(result.follow_up_questions.length).toBeLessThanOrEqual(2);
  });

  test("without the sentiment model's files the embedded trained engine answers (issue 16)", async () => {
    const own = createInferenceClient({ modelsDir: FIXTURE_MODELS_DIR, asrModel: FIXTURE_ASR_MODEL, sentimentModel: "absent/model" });
    try {
      const result = await own.analyse(complaint);
      expect(result.engine.sentiment).toBe("trained:linear-v2");
      expect(result.ai_insights.sentiment).toBe("negative");
    } finally {
      await own.close();
    }
  });

  test("transcriptions and analyses share the worker, each answered once", async () => {
    const wav = await speechWav(scratch.dir, "thank you");
    const [t, a, b] = await Promise.all([client.transcribe(wav), client.analyse("I love the new dashboard"), client.analyse("")]);
    expectHeard(t.text, "thank you");
    expect(a.ai_insights.sentiment).toBe("positive");
    expect(b.clarity).toBe(0);
  });
});

describe("worker lifecycle", () => {
  test("a dying worker rejects its pending requests and the next call starts a new one", async () => {
    const wav = await speechWav(scratch.dir);
    const pending = client.transcribe(wav);
    client.restartWorker();
    const err = await rejectionOf(pending);
    expect(err).toBeInstanceOf(InferenceError);
    expect((err as InferenceError).code).toBe("WORKER_DIED");
    const again = await client.transcribe(wav);
    expectHeard(again.text, "hello there");
    expect(again.timings.loadMs).toBeGreaterThan(0); // a fresh worker loads the model again
  });

  test("dropping or closing the worker mid-transcription never takes the process down (ONNX Runtime's native callbacks)", async () => {
    // In a child: the defect aborts the whole process (std::terminate), which would end this run.
    const child = Bun.spawn([process.execPath, path.resolve(import.meta.dir, "../../test/helpers/worker-restarts.ts"), "20"], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    expect({ code, tail: err.slice(-600) }).toEqual({ code: 0, tail: expect.any(String) });
    expect(out).toMatch(/^survived 20 \((\d+) cut mid-request\), close: CLOSED$/m);
    expect(Number(/\((\d+) cut/.exec(out)![1])).toBeGreaterThanOrEqual(10); // the restarts did land mid-request
  }, 120_000);

  test("a missing model file → MODEL_MISSING naming the file and `earshot models fetch`", async () => {
    const modelsDir = path.join(scratch.dir, "models");
    cpSync(path.join(FIXTURE_MODELS_DIR, FIXTURE_ASR_MODEL), path.join(modelsDir, "broken"), { recursive: true });
    const missing = path.join(modelsDir, "broken", "onnx", "decoder_model_merged.onnx");
    rmSync(missing);
    const broken = createInferenceClient({ modelsDir, asrModel: "broken", sentimentModel: "none" });
    try {
      const err = await rejectionOf(broken.transcribe(await speechWav(scratch.dir)));
      expect(err).toBeInstanceOf(InferenceError);
      expect((err as InferenceError).code).toBe("MODEL_MISSING");
      expect((err as Error).message).toContain(missing);
      expect((err as Error).message).toContain("earshot models fetch");

      const noFolder = createInferenceClient({ modelsDir, asrModel: "absent/model", sentimentModel: "none" });
      const folderErr = await rejectionOf(noFolder.transcribe(await speechWav(scratch.dir)));
      await noFolder.close();
      expect((folderErr as InferenceError).code).toBe("MODEL_MISSING");
      expect((folderErr as Error).message).toContain(path.join(modelsDir, "absent", "model"));
    } finally {
      await broken.close();
    }
  });

  test("close() rejects pending requests and refuses new ones", async () => {
    const own = createInferenceClient({ modelsDir: FIXTURE_MODELS_DIR, asrModel: FIXTURE_ASR_MODEL, sentimentModel: "x" });
    const pending = rejectionOf(own.transcribe(await speechWav(scratch.dir)));
    await own.close();
    expect(((await pending) as InferenceError).code).toBe("CLOSED");
    expect(((await rejectionOf(own.transcribe(new Uint8Array(10)))) as InferenceError).code).toBe("CLOSED");
  });
});
