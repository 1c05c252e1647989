/**
 * Long recordings: windows moved on by Whisper's timestamps (ai/asr-windows.ts), checked on the rule
 * itself and end to end through the real fixture model.
 */
import { afterAll, expect, test } from "bun:test";
import { createAsr } from "./asr.ts";
import { nextWindow, transcribeWindows } from "./asr-windows.ts";
import { decodeAudio } from "./audio.ts";
import { FIXTURE_ASR_MODEL, FIXTURE_MODELS_DIR, FIXTURE_TRANSCRIPT, toneWav } from "../../test/helpers/audio-fixtures.ts";

const asr = createAsr(FIXTURE_MODELS_DIR, FIXTURE_ASR_MODEL, 1, "off");
afterAll(() => asr.unload());

test("an open last segment is heard again from its start in the next window", () => {
  const out = {
    text: " One. Two",
    chunks: [
      { text: " One.", timestamp: [0, 12.5] as [number, number] },
      { text: " Two", timestamp: [27.2, null] as [number, null] },
    ],
  };
  expect(nextWindow(out, 30, false)).toEqual({ advanceS: 27.2, chunks: [out.chunks[0]!] });
  // The last window keeps it: it ends with the recording.
  expect(nextWindow(out, 30, true)).toEqual({ advanceS: 30, chunks: out.chunks });
});

test("a closed last segment, or no timestamps, moves on by the whole window", () => {
  const closed = { text: " One.", chunks: [{ text: " One.", timestamp: [1, 29.5] as [number, number] }] };
  expect(nextWindow(closed, 30, false)).toEqual({ advanceS: 30, chunks: closed.chunks });
  expect(nextWindow({ text: " Untimed words" }, 30, false)).toEqual({ advanceS: 30, chunks: [{ text: " Untimed words", timestamp: [0, 30] }] });
  expect(nextWindow({ text: "", chunks: [] }, 30, false)).toEqual({ advanceS: 30, chunks: [] });
});

test("an open segment starting near the window's start cannot stall the windows", async () => {
  const seen: number[] = [];
  const sr = 100; // samples per second: enough for the rule, small for the test
  const { chunks } = await transcribeWindows(new Float32Array(70 * sr), sr, async (w) => {
    seen.push(w.length / sr);
    return { text: " Endless", chunks: [{ text: " Endless", timestamp: [2, null] }] };
  });
  expect(seen).toEqual([30, 30, 10]);
  expect(chunks.map((c) => c.timestamp)).toEqual([
    [2, 30],
    [32, 60],
    [62, null],
  ]);
});

test("120 s through the fixture: four 30 s windows, each transcribed once, segments in recording time", async () => {
  const { pcm } = await decodeAudio(toneWav({ seconds: 120, rateHz: 16_000, amplitude: 0.3 }));
  const result = await asr.transcribe(pcm);
  expect(result.text).toBe(Array(4).fill(FIXTURE_TRANSCRIPT).join(" "));
  expect(result.segments.map((s) => [Math.round(s.start_s), Math.round(s.end_s)])).toEqual([
    [0, 30],
    [30, 60],
    [60, 90],
    [90, 120],
  ]);
});
