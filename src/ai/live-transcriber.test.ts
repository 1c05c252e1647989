import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createInferenceClient } from "./inference-client.ts";
import { AudioTooLongError } from "./audio.ts";
import { createLiveTranscriber, respondentMessage, type LiveServerMessage } from "./live-transcriber.ts";
import { FIXTURE_ASR_MODEL, HEARING_ASR_MODEL, HEARING_MODELS_DIR, makeScratchDir, toneWav, webmFixture } from "../../test/helpers/audio-fixtures.ts";
import { expectHeard } from "../../test/helpers/hearing.ts";

// The hearing Whisper fixture: the committed WebM recording says "hello there", and so must the final.
const client = createInferenceClient({ modelsDir: HEARING_MODELS_DIR, asrModel: HEARING_ASR_MODEL, sentimentModel: "none" });
afterAll(() => client.close());
// Load the model first: on a busy machine that alone can outlast the recording streamed below,
// and the throttling test is about partials, not about the one-time load.
beforeAll(async () => {
  await client.transcribe(await webmFixture(), { priority: "live" });
}, 60_000);

const live = (send: (m: LiveServerMessage) => void, intervalMs = 300, maxBytes?: number) =>
  createLiveTranscriber({ transcribe: (audio) => client.transcribe(audio, { priority: "live" }), send, intervalMs, maxBytes });

describe("live transcriber", () => {
  test("partials of the growing recording, throttled, then a final of all of it", async () => {
    const webm = await webmFixture();
    const partials: { text: string; duration: number; atMs: number }[] = [];
    const started = performance.now();
    const t = live((m) => {
      if (m.type === "partial") partials.push({ text: m.text, duration: m.duration, atMs: performance.now() - started });
    });
    for (let at = 0; at < webm.length; at += 1_000) {
      expect(t.push(webm.subarray(at, at + 1_000))).toBe(true);
      await Bun.sleep(40);
    }
    // A second partial covers the audio that arrived while the first was transcribed; on a busy
    // machine the first can outlast the whole stream, so wait for it rather than a fixed time.
    for (const deadline = performance.now() + 20_000; partials.length < 2 && performance.now() < deadline; ) await Bun.sleep(50);
    const final = await t.finish();
    expect(final).toEqual({ type: "final", text: expect.any(String), duration: 1.5 });
    expectHeard(final.text, "hello there");
    expect(partials.length).toBeGreaterThanOrEqual(2);
    partials.forEach((p, k) => expect(p.atMs).toBeGreaterThanOrEqual(k * 300));
    // Each partial covers more audio than the one before (or the same, at the end).
    for (let k = 1; k < partials.length; k++) expect(partials[k]!.duration).toBeGreaterThanOrEqual(partials[k - 1]!.duration);
    // The partials are of the words heard so far: "hello" is in one before the final.
    expect(partials.map((p) => p.text)).toContainEqual(expect.stringMatching(/hello/i));
  });

  test("a partial jumps ahead of queued batch transcriptions", async () => {
    const long = toneWav({ seconds: 40, rateHz: 16_000, amplitude: 0.3 });
    const order: string[] = [];
    const batches = [1, 2, 3].map((n) => client.transcribe(long, { priority: "batch" }).then(() => order.push(`batch${n}`)));
    const partial = Promise.withResolvers<void>();
    const t = live((m) => {
      if (m.type === "partial") {
        order.push("partial");
        partial.resolve();
      }
    }, 0);
    t.push(await webmFixture());
    await Promise.all([...batches, partial.promise]);
    t.close();
    expect(order.indexOf("partial")).toBeLessThan(order.indexOf("batch3"));
  });

  test("too little audio yet is not an error; nothing at all gives an empty final", async () => {
    const webm = await webmFixture();
    const messages: LiveServerMessage[] = [];
    const t = live((m) => messages.push(m), 0);
    t.push(webm.subarray(0, 300)); // the WebM header only: no Opus packet yet
    await Bun.sleep(400);
    expect(messages).toEqual([]);
    expect(await t.finish()).toEqual({ type: "final", text: "", duration: 0 });
    expect(await live(() => {}).finish()).toEqual({ type: "final", text: "", duration: 0 });
  });

  test("with the model missing the respondent is told a generic sentence; the details go to onError only", async () => {
    const emptyModels = makeScratchDir();
    const bare = createInferenceClient({ modelsDir: emptyModels.dir, asrModel: FIXTURE_ASR_MODEL, sentimentModel: "none" });
    try {
      const messages: LiveServerMessage[] = [];
      const logged: string[] = [];
      const t = createLiveTranscriber({
        transcribe: (audio) => bare.transcribe(audio, { priority: "live" }),
        send: (m) => messages.push(m),
        onError: (err) => logged.push((err as Error).message),
        intervalMs: 0,
      });
      t.push(await webmFixture());
      for (let i = 0; i < 100 && messages.length === 0; i++) await Bun.sleep(20);
      expect(messages).toEqual([{ type: "error", code: "MODEL_MISSING", message: respondentMessage("MODEL_MISSING") }]);
      expect(JSON.stringify(messages)).not.toContain(emptyModels.dir);
      expect(logged).toEqual([expect.stringContaining(emptyModels.dir)]);
      expect(logged[0]).toContain("earshot models fetch");
      t.close();
    } finally {
      await bare.close();
      emptyModels.remove();
    }
  });

  test("a recording longer than maxDurationS is an AUDIO_TOO_LONG error, partial and final", async () => {
    const messages: LiveServerMessage[] = [];
    const t = createLiveTranscriber({
      transcribe: (audio) => client.transcribe(audio, { priority: "live", maxDurationS: 1 }),
      send: (m) => messages.push(m),
      intervalMs: 0,
    });
    t.push(await webmFixture()); // 1.5 s
    for (let i = 0; i < 100 && messages.length === 0; i++) await Bun.sleep(20);
    expect(messages).toEqual([{ type: "error", code: "AUDIO_TOO_LONG", message: "The recording is longer than this question allows." }]);
    await expect(t.finish()).rejects.toBeInstanceOf(AudioTooLongError);
  });

  test("refuses chunks past maxBytes", () => {
    const t = live(() => {}, 300, 1_000);
    expect(t.push(new Uint8Array(600))).toBe(true);
    expect(t.push(new Uint8Array(600))).toBe(false);
    t.close();
  });
});
