import { afterAll, describe, expect, test } from "bun:test";
import { AudioDecodeError, decodeAudio, sniffAudioFormat, TARGET_SAMPLE_RATE_HZ } from "./audio.ts";
import {
  makeScratchDir,
  oggOpusOf,
  peakOf,
  speechWav,
  toneWav,
  WEBM_FIXTURE_DURATION_S,
  wavDurationS,
  webmFixture,
} from "./test-audio.ts";

const scratch = makeScratchDir();
afterAll(() => scratch.remove());

const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);
const randomBytes = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));
const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));

async function decodeError(bytes: Uint8Array): Promise<AudioDecodeError> {
  const err = await decodeAudio(bytes).then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(AudioDecodeError);
  return err as AudioDecodeError;
}

describe("sniffAudioFormat", () => {
  test("tells WAV, WebM and Ogg apart by their magic bytes", async () => {
    expect(sniffAudioFormat(await speechWav(scratch.dir))).toBe("wav");
    expect(sniffAudioFormat(await webmFixture())).toBe("webm");
    expect(sniffAudioFormat(concat(ascii("OggS"), new Uint8Array(20)))).toBe("ogg");
  });

  test("returns null for other, short or empty input", () => {
    expect(sniffAudioFormat(new Uint8Array(0))).toBeNull();
    expect(sniffAudioFormat(ascii("RIFF"))).toBeNull();
    expect(sniffAudioFormat(ascii("RIFF\0\0\0\0AVI LIST"))).toBeNull();
    expect(sniffAudioFormat(ascii("ID3\x04 mp3 data"))).toBeNull();
    expect(sniffAudioFormat(new Uint8Array([0x1a, 0x45, 0xdf]))).toBeNull();
  });
});

describe("decodeAudio", () => {
  test("WAV speech (espeak-ng, 22.05 kHz) → 16 kHz mono of the same duration", async () => {
    const wav = await speechWav(scratch.dir);
    const audio = await decodeAudio(wav);
    expect(audio.format).toBe("wav");
    expect(audio.durationS).toBeCloseTo(wavDurationS(wav), 2);
    expect(audio.durationS).toBe(audio.pcm.length / TARGET_SAMPLE_RATE_HZ);
    expect(peakOf(audio.pcm)).toBeGreaterThan(0.2);
    expect(peakOf(audio.pcm)).toBeLessThanOrEqual(1.05);
  });

  test("WAV at other rates, stereo, 24-bit and float all come out as 16 kHz mono in [-1, 1]", async () => {
    const cases = [
      { seconds: 2, rateHz: 48_000, channels: 2, bitDepth: "16" },
      { seconds: 1.25, rateHz: 44_100, channels: 2, bitDepth: "24" },
      { seconds: 0.5, rateHz: 16_000, channels: 1, bitDepth: "16" },
      { seconds: 1, rateHz: 8_000, channels: 1, bitDepth: "32f" },
    ];
    for (const c of cases) {
      const audio = await decodeAudio(toneWav({ ...c, amplitude: 0.5 }));
      expect(audio.durationS).toBeCloseTo(c.seconds, 2);
      expect(peakOf(audio.pcm)).toBeGreaterThan(0.4);
      expect(peakOf(audio.pcm)).toBeLessThan(0.6);
    }
  });

  test("digital silence decodes to zeros", async () => {
    const audio = await decodeAudio(toneWav({ seconds: 1.5, rateHz: 48_000, amplitude: 0 }));
    expect(audio.durationS).toBeCloseTo(1.5, 3);
    expect(peakOf(audio.pcm)).toBe(0);
  });

  test("Ogg/Opus (opusenc) matches its source WAV's duration", async () => {
    const wav = await speechWav(scratch.dir, "this is a slightly longer sentence to encode");
    const audio = await decodeAudio(await oggOpusOf(scratch.dir, wav));
    expect(audio.format).toBe("ogg");
    // Opus works in 20 ms frames, so the end may be padded by up to one frame.
    expect(Math.abs(audio.durationS - wavDurationS(wav))).toBeLessThan(0.03);
    expect(peakOf(audio.pcm)).toBeGreaterThan(0.2);
  });

  test("WebM/Opus from Chromium's MediaRecorder decodes to its recorded length", async () => {
    const audio = await decodeAudio(await webmFixture());
    expect(audio.format).toBe("webm");
    expect(Math.abs(audio.durationS - WEBM_FIXTURE_DURATION_S)).toBeLessThan(0.1);
    expect(peakOf(audio.pcm)).toBeGreaterThan(0.2);
  });

  test("a WebM upload cut short keeps the audio it has", async () => {
    const webm = await webmFixture();
    const audio = await decodeAudio(webm.subarray(0, Math.floor(webm.length / 2)));
    expect(audio.durationS).toBeGreaterThan(0.2);
    expect(audio.durationS).toBeLessThan(WEBM_FIXTURE_DURATION_S);
  });

  test("empty input → AudioDecodeError saying so", async () => {
    expect((await decodeError(new Uint8Array(0))).reason).toContain("empty");
  });

  test("unknown bytes → AudioDecodeError naming the accepted formats", async () => {
    const err = await decodeError(randomBytes(4096));
    expect(err.reason).toContain("WAV, WebM or Ogg");
    expect(err.message).toContain(err.reason);
  });

  test("garbage behind each format's magic bytes → AudioDecodeError, never a crash", async () => {
    const webmHeader = (await webmFixture()).subarray(0, 4);
    for (const bytes of [
      concat(ascii("RIFF\0\x10\0\0WAVE"), randomBytes(2048)),
      concat(webmHeader, randomBytes(2048)),
      concat(ascii("OggS"), randomBytes(2048)),
      (await webmFixture()).subarray(0, 200), // headers only, no audio
    ]) {
      const err = await decodeError(bytes);
      expect(err.reason.length).toBeGreaterThan(10);
    }
  });
});
