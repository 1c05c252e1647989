/**
 * @module ai/vad.test
 * The voice-activity step (issue 27, "Skip silence") on real audio: espeak-ng speech, silences
 * and sox white noise, decoded by our own decoder. Long pauses are cut and the cut map points
 * back to the original times; silence and steady noise hold no speech; noise under the speech,
 * at several levels and changing mid-clip, does not cut any of it.
 */
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { decodeAudio } from "./audio.ts";
import { skipSilence, toSourceTime, VAD_MAX_PAUSE_S } from "./vad.ts";
import { makeScratchDir } from "../../test/helpers/audio-fixtures.ts";
import { type ClipPart, pauseClip } from "../../test/helpers/pause-clips.ts";

const scratch = makeScratchDir();
afterAll(() => scratch.remove());

const RATE = 16_000;
const decoded = async (parts: ClipPart[], noise?: number) => {
  const clip = pauseClip(scratch.dir, crypto.randomUUID(), parts, noise);
  return { pcm: (await decodeAudio(new Uint8Array(readFileSync(clip.file)))).pcm, spans: clip.spans, words: clip.words };
};
/** True when [from, to] (original seconds) lies inside one kept piece. */
const isKept = (pieces: { sourceS: number; durationS: number }[], from: number, to: number) =>
  pieces.some((p) => p.sourceS <= from + 0.01 && p.sourceS + p.durationS >= to - 0.01);

test("a 5 s pause between two phrases is cut; the cut map gives the second phrase its real start", async () => {
  const { pcm, words } = await decoded([{ say: "the checkout was slow" }, { silenceS: 5 }, { say: "shipping cost too much" }]);
  const cut = skipSilence(pcm, RATE);
  expect(cut.pieces).toHaveLength(2);
  // Whisper gets about 5 s less, less the padding kept around each phrase.
  expect(pcm.length / RATE - cut.pcm.length / RATE).toBeGreaterThan(4);
  expect(cut.pcm.length).toBe(Math.round(cut.pieces.reduce((n, p) => n + p.durationS, 0) * RATE));
  const [first, second] = cut.pieces;
  expect(isKept(cut.pieces, ...words[0]!)).toBe(true);
  expect(isKept(cut.pieces, ...words[1]!)).toBe(true);
  // The second phrase starts right after the first piece in the cut audio, and maps back to ~6.5 s.
  expect(second!.cutS).toBeCloseTo(first!.durationS, 3);
  const spoken = toSourceTime(cut.pieces, second!.cutS + 0.25, "start");
  expect(spoken).toBeGreaterThan(6);
  expect(Math.abs(spoken - words[1]![0])).toBeLessThan(0.3);
});

test("pauses under a second stay: speech rhythm is not chopped", async () => {
  const { pcm } = await decoded([{ say: "one two" }, { silenceS: VAD_MAX_PAUSE_S * 0.6 }, { say: "three four" }]);
  const cut = skipSilence(pcm, RATE);
  expect(cut.pieces).toHaveLength(1);
});

test("digital silence, steady noise and quiet noise hold no speech", async () => {
  for (const parts of [
    [{ silenceS: 4 }],
    [{ noiseS: 4, amplitude: 0.02 }],
    [{ noiseS: 2, amplitude: 0.001 }, { silenceS: 1 }, { noiseS: 2, amplitude: 0.002 }],
  ] as ClipPart[][]) {
    const { pcm } = await decoded(parts);
    const cut = skipSilence(pcm, RATE);
    expect(cut.pieces).toEqual([]);
    expect(cut.pcm.length).toBe(0);
  }
});

test("noise under the speech, at several levels and rising mid-clip, cuts none of the words", async () => {
  const words: ClipPart[] = [{ say: "the app crashed when I paid" }, { silenceS: 3 }, { say: "please fix the login page" }];
  for (const level of [0.005, 0.02, 0.06]) {
    const clip = await decoded(words, level);
    const cut = skipSilence(clip.pcm, RATE);
    expect(isKept(cut.pieces, ...clip.words[0]!)).toBe(true);
    expect(isKept(cut.pieces, ...clip.words[1]!)).toBe(true);
    expect(cut.pieces).toHaveLength(2);
  }
  // Quiet noise, then loud noise from the pause on: the floor is the quiet part; nothing is lost.
  const { pcm, words: said } = await decoded([
    { say: "the app crashed" },
    { noiseS: 2, amplitude: 0.002 },
    { noiseS: 2, amplitude: 0.05 },
    { say: "please fix it" },
  ]);
  const cut = skipSilence(pcm, RATE);
  expect(isKept(cut.pieces, ...said[0]!)).toBe(true);
  expect(isKept(cut.pieces, ...said[1]!)).toBe(true);
});

test("a clip that never goes quiet (loud noise, a held tone) is kept whole: pauses cannot be told from speech", async () => {
  const { pcm } = await decoded([{ noiseS: 3, amplitude: 0.3 }]);
  const cut = skipSilence(pcm, RATE);
  expect(cut.pcm).toBe(pcm);
  expect(cut.pieces).toEqual([{ sourceS: 0, cutS: 0, durationS: 3 }]);
});

test("the cut map: starts go forward over a cut, ends stay before it; past the end clamps", () => {
  const pieces = [
    { sourceS: 0.5, cutS: 0, durationS: 2 },
    { sourceS: 7, cutS: 2, durationS: 1.5 },
  ];
  expect(toSourceTime(pieces, 1, "start")).toBe(1.5);
  expect(toSourceTime(pieces, 2, "start")).toBe(7);
  expect(toSourceTime(pieces, 2, "end")).toBe(2.5);
  expect(toSourceTime(pieces, 3, "end")).toBe(8);
  expect(toSourceTime(pieces, 9, "end")).toBe(8.5);
  expect(toSourceTime([], 4, "start")).toBe(4);
});
