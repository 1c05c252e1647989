/**
 * The Whisper model's lifetime in the real inference worker (issue 27): one load shared by batch
 * jobs, live partials and concurrent requests, and `EARSHOT_ASR_IDLE_UNLOAD_S` unloading it when
 * idle, then reloading it transparently. Loads are counted by what the worker reports: a request
 * that loaded the model has `timings.loadMs > 0`, every other one 0.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createInferenceClient, type TranscribeResult } from "./inference-client.ts";
import { createLiveTranscriber, type LiveServerMessage } from "./live-transcriber.ts";
import { FIXTURE_ASR_MODEL, FIXTURE_MODELS_DIR, FIXTURE_TRANSCRIPT, makeScratchDir, oggOpusOf, speechWav } from "../../test/helpers/audio-fixtures.ts";

const scratch = makeScratchDir();
const clients: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  scratch.remove();
});

const clientWith = (asrIdleUnloadS: number) => {
  const c = createInferenceClient({ modelsDir: FIXTURE_MODELS_DIR, asrModel: FIXTURE_ASR_MODEL, sentimentModel: "tiny-sentiment-3class", asrIdleUnloadS });
  clients.push(c);
  return c;
};
const loadsIn = (results: TranscribeResult[]) => results.filter((r) => r.timings.loadMs > 0).length;

describe("one Whisper load per worker", () => {
  test("batch jobs, live partials and concurrent requests share one load", async () => {
    const client = clientWith(0);
    const wav = await speechWav(scratch.dir, "one load for everyone");
    const ogg = await oggOpusOf(scratch.dir, wav);
    const results: TranscribeResult[] = [];
    const record = (r: TranscribeResult) => {
      results.push(r);
      return r;
    };
    // Concurrent from the start: the first requests all wait on the same load.
    await Promise.all([
      client.transcribe(wav, { priority: "batch" }).then(record),
      client.transcribe(ogg, { priority: "live" }).then(record),
      client.transcribe(wav, { priority: "batch", translate: true }).then(record),
      client.analyse("The export button is hard to find.", {}, { priority: "live" }),
    ]);
    // A live recording through the live transcriber, as the WebSocket route drives it.
    const sent: LiveServerMessage[] = [];
    const live = createLiveTranscriber({
      transcribe: (audio) => client.transcribe(audio, { priority: "live" }).then(record),
      send: (m) => sent.push(m),
      intervalMs: 10,
    });
    live.push(ogg);
    for (let i = 0; i < 200 && sent.length === 0; i++) await Bun.sleep(50);
    expect(sent[0]).toMatchObject({ type: "partial", text: FIXTURE_TRANSCRIPT });
    const final = await live.finish();
    expect(final.text).toBe(FIXTURE_TRANSCRIPT);
    for (const r of results) expect(r.text).toBe(FIXTURE_TRANSCRIPT);
    expect(results.length).toBeGreaterThanOrEqual(5);
    expect(loadsIn(results)).toBe(1);
  });
});

describe("EARSHOT_ASR_IDLE_UNLOAD_S", () => {
  test("the model is unloaded after the idle time and reloaded transparently by the next answer", async () => {
    const client = clientWith(0.5);
    const wav = await speechWav(scratch.dir, "unload me when idle");
    const first = await client.transcribe(wav);
    const soon = await client.transcribe(wav); // within the idle time: still loaded
    await Bun.sleep(1_200);
    const later = await client.transcribe(wav);
    expect([first, soon, later].map((r) => r.text)).toEqual([FIXTURE_TRANSCRIPT, FIXTURE_TRANSCRIPT, FIXTURE_TRANSCRIPT]);
    expect(first.timings.loadMs).toBeGreaterThan(0);
    expect(soon.timings.loadMs).toBe(0);
    expect(later.timings.loadMs).toBeGreaterThan(0);
    expect(later.segments.length).toBeGreaterThan(0);
  });

  test("0 never unloads", async () => {
    const client = clientWith(0);
    const wav = await speechWav(scratch.dir, "keep me loaded");
    await client.transcribe(wav);
    await Bun.sleep(1_200);
    expect((await client.transcribe(wav)).timings.loadMs).toBe(0);
  });
});
