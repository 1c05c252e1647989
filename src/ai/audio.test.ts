import { afterAll, describe, expect, test } from "bun:test";
import {
  assertRecordingFits,
  AudioDecodeError,
  maxOpusPackets,
  AudioTooLongError,
  decodeAudio,
  parseWav,
  recordingLimitS,
  sniffAudioFormat,
  TARGET_SAMPLE_RATE_HZ,
} from "./audio.ts";
import {
  makeScratchDir,
  oggOpusOf,
  pcm8Wav,
  peakOf,
  speechWav,
  toneWav,
  WEBM_FIXTURE_DURATION_S,
  wavDurationS,
  webmFixture,
  webmFlood,
  webmOfOgg,
} from "../../test/helpers/audio-fixtures.ts";

const scratch = makeScratchDir();
afterAll(() => scratch.remove());

const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);
const randomBytes = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));
const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));

async function decodeError(bytes: Uint8Array): Promise<AudioDecodeError> {
  const err = await decodeAudio(bytes).then(
    () => null,
    (e: unknown) => e,
  );
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

describe("bounds (DESIGN §9: 8–192 kHz, max_duration + 2 s, no allocation past the limit)", () => {
  const tooLong = async (run: Promise<unknown>): Promise<AudioTooLongError> => {
    const err = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AudioTooLongError);
    return err as AudioTooLongError;
  };

  test("the 1 MB 8-bit WAV declaring 100 Hz (a decompression bomb) is refused from its header, without growing memory", async () => {
    const bomb = pcm8Wav(100, 1024 * 1024); // 10 486 s at 100 Hz; 16 kHz float would be 671 MB
    Bun.gc(true);
    const rssBefore = process.memoryUsage().rss;
    const err = await decodeError(bomb);
    expect(err.reason).toContain("100 Hz");
    expect(err).not.toBeInstanceOf(AudioTooLongError);
    await expect(assertRecordingFits(bomb, recordingLimitS(10))).rejects.toBeInstanceOf(AudioDecodeError);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
  });

  test("sample rates outside 8–192 kHz are refused; the edges decode", async () => {
    for (const rate of [7_999, 192_001, 0]) expect((await decodeError(pcm8Wav(rate, 8_000))).reason).toContain(`${rate} Hz`);
    expect((await decodeAudio(pcm8Wav(8_000, 8_000))).durationS).toBeCloseTo(1, 2);
    expect((await decodeAudio(pcm8Wav(192_000, 192_000))).durationS).toBeCloseTo(1, 2);
  });

  test("A-law and µ-law WAVs decode (large ones window by window: test/integration/audio-bombs.test.ts)", async () => {
    for (const tag of [6, 7]) expect((await decodeAudio(pcm8Wav(8_000, 16_000, tag))).durationS).toBeCloseTo(2, 2);
  });

  test("a 600 s WAV on a question with max_duration 10 is refused from its header (limit 12 s)", async () => {
    const wav = pcm8Wav(8_000, 600 * 8_000);
    expect(parseWav(wav)).toMatchObject({ sampleRate: 8_000, channels: 1, dataBytes: 600 * 8_000, durationS: 600 });
    const err = await tooLong(decodeAudio(wav, { maxDurationS: recordingLimitS(10) }));
    expect([err.limitS, err.durationS]).toEqual([12, 600]);
    await tooLong(assertRecordingFits(wav, 12));
    // Within the grace it passes: 11.5 s on a 10 s question.
    await assertRecordingFits(pcm8Wav(8_000, 11.5 * 8_000), 12);
    expect((await decodeAudio(pcm8Wav(8_000, 11.5 * 8_000), { maxDurationS: 12 })).durationS).toBeCloseTo(11.5, 2);
  });

  test("a WebM longer than the limit is refused at upload from its packets, and while decoding", async () => {
    const ogg = await oggOpusOf(scratch.dir, toneWav({ seconds: 10, rateHz: 16_000 }));
    const webm = await webmOfOgg(ogg);
    await tooLong(assertRecordingFits(webm, 3));
    await tooLong(assertRecordingFits(ogg, 3));
    await tooLong(decodeAudio(webm, { maxDurationS: 3 }));
    await tooLong(decodeAudio(ogg, { maxDurationS: 3 }));
    expect((await decodeAudio(webm, { maxDurationS: 12 })).durationS).toBeCloseTo(10, 1);
  });

  test("a WebM flood of 1-byte packets all stamped 0 s is refused at upload by its packet count, and decodes in flat memory", async () => {
    // 300 000 packets (3 MB): every Opus packet is ≥ 2.5 ms, so 122 s allows at most 48 800.
    const flood = await webmFlood(300_000);
    expect(maxOpusPackets(122)).toBe(48_800);
    const atUpload = await tooLong(assertRecordingFits(flood, 122));
    expect(atUpload.durationS).toBeGreaterThan(122);
    await assertRecordingFits(await webmFlood(400), 3); // 400 packets fit 3 s (≤ 1 200)
    Bun.gc(true);
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const err = await tooLong(decodeAudio(flood, { maxDurationS: 122 }));
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    // Counted from the EBML structure before the demuxer builds an object per block (~300 MB for 1 M).
    expect(err.durationS).toBeLessThan(130);
    expect(peak - rssBefore).toBeLessThan(30 * 1024 * 1024);
  }, 60_000);

  test("an Ogg of another codec (Vorbis, from sox) is refused by the check as by the decoder", async () => {
    const file = `${scratch.dir}/vorbis.ogg`;
    const sox = Bun.spawnSync(["sox", "-n", file, "synth", "1", "sine", "440"]);
    expect(sox.exitCode).toBe(0);
    const vorbis = new Uint8Array(await Bun.file(file).arrayBuffer());
    const atUpload = await assertRecordingFits(vorbis, 12).then(
      () => null,
      (e: unknown) => e,
    );
    expect(atUpload).toBeInstanceOf(AudioDecodeError);
    expect((atUpload as AudioDecodeError).reason).toBe("the Ogg audio uses codec vorbis; only Opus is supported");
    expect((await decodeError(vorbis)).reason).toBe((atUpload as AudioDecodeError).reason);
  });

  test("a WebM whose timestamps claim less than it holds passes the container check but not decoding", async () => {
    const squeezed = await webmOfOgg(await oggOpusOf(scratch.dir, toneWav({ seconds: 10, rateHz: 16_000 })), { squeeze: true });
    await assertRecordingFits(squeezed, 3); // the container says ~0.5 s
    const err = await tooLong(decodeAudio(squeezed, { maxDurationS: 3 }));
    // Stopped after the batch that crossed the limit, not after decoding all 10 s.
    expect(err.durationS).toBeGreaterThan(3);
    expect(err.durationS).toBeLessThan(10);
  });
});
