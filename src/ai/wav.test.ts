/**
 * Issue 22 item 1: one reading of a WAV. The upload check (`assertRecordingFits`) and the decoder
 * (`decodeAudio`) must agree on what a file is — they both use `parseWav` — and a file that could
 * be read two ways is refused by both. Hostile files are byte-built here; real A-law, µ-law and
 * IMA ADPCM files come from sox, whose own decoding is the reference. Peak memory of each hostile
 * variant is measured in a child process in test/integration/audio-bombs.test.ts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { alaw, mulaw } from "alawmulaw";
import { assertRecordingFits, AudioDecodeError, AudioTooLongError, decodeAudio, parseWav } from "./audio.ts";
import { OutputBudget } from "./audio-common.ts";
import { decodeWav } from "./wav.ts";
import { fmtBody, makeScratchDir, peakOf, riffWav, soxWav, toneWav } from "../../test/helpers/audio-fixtures.ts";

const scratch = makeScratchDir();
afterAll(() => scratch.remove());

const MULAW = 7;
const ALAW = 6;
const IMA_ADPCM = 0x11;

/** A 440 Hz tone of `seconds` at `rateHz`, G.711-coded (µ-law or A-law), mono. */
function g711Tone(codec: "alaw" | "mulaw", seconds: number, rateHz = 8_000): Uint8Array {
  const pcm = Int16Array.from({ length: Math.round(seconds * rateHz) }, (_, i) => Math.round(16_000 * Math.sin((2 * Math.PI * 440 * i) / rateHz)));
  return (codec === "alaw" ? alaw : mulaw).encode(pcm);
}

/** What the check and the decoder each make of `bytes` at `limitS`: "ok <seconds>" or the error's reason. */
async function verdicts(bytes: Uint8Array, limitS: number): Promise<{ check: string; decode: string }> {
  const reason = (e: unknown) => (e instanceof AudioDecodeError ? `${e.name}: ${e.reason}` : `crash: ${String(e)}`);
  const check = await assertRecordingFits(bytes, limitS).then(() => "ok", reason);
  const decode = await decodeAudio(bytes, { maxDurationS: limitS }).then((a) => `ok ${a.durationS.toFixed(2)}`, reason);
  return { check, decode };
}

describe("one reading of a WAV header (issue 22 item 1)", () => {
  // The reported bomb: 80 KB of µ-law is 10 s at 8 000 Hz, or 800 s at 100 Hz.
  const data = g711Tone("mulaw", 10);
  const fmt8k = fmtBody({ tag: MULAW, rateHz: 8_000, bits: 8 });
  const fmt100 = fmtBody({ tag: MULAW, rateHz: 100, bits: 8 });

  test("two fmt chunks, in either order, are refused by the check and by the decoder alike", async () => {
    for (const chunks of [
      [
        ["fmt ", fmt100],
        ["fmt ", fmt8k],
        ["data", data],
      ],
      [
        ["fmt ", fmt8k],
        ["fmt ", fmt100],
        ["data", data],
      ],
      [
        ["fmt ", fmt8k],
        ["LIST", new Uint8Array(7)],
        ["fmt ", fmt8k],
        ["data", data],
      ],
    ] as Array<Array<[string, Uint8Array]>>) {
      const v = await verdicts(riffWav(chunks), 12);
      expect(v.check).toBe("AudioDecodeError: the WAV file has two fmt chunks; a recording has one");
      expect(v.decode).toBe(v.check);
    }
  });

  test("fmt after data, data before fmt and two data chunks are refused alike", async () => {
    const cases: Array<[Array<[string, Uint8Array]>, string]> = [
      [
        [
          ["fmt ", fmt8k],
          ["data", data],
          ["fmt ", fmt100],
        ],
        "fmt chunk comes after its data chunk",
      ],
      [
        [
          ["data", data],
          ["fmt ", fmt8k],
        ],
        "data chunk comes before its fmt chunk",
      ],
      [
        [
          ["fmt ", fmt8k],
          ["data", data],
          ["data", data],
        ],
        "two data chunks",
      ],
      [[["fmt ", fmt8k]], "no data chunk"],
    ];
    for (const [chunks, reason] of cases) {
      const v = await verdicts(riffWav(chunks), 602);
      expect(v.check).toContain(reason);
      expect(v.decode).toBe(v.check);
    }
  });

  test("odd chunk sizes are read with their pad byte, the same way by both", async () => {
    const odd = g711Tone("mulaw", 1.001).subarray(0, 8_001); // an odd-sized data chunk, padded
    const wav = riffWav([
      ["junk", new Uint8Array(3)],
      ["fmt ", fmt8k],
      ["data", odd],
      ["LIST", new Uint8Array(5)],
    ]);
    expect(parseWav(wav)).toMatchObject({ codec: "mulaw", sampleRate: 8_000, frames: 8_001 });
    expect(await verdicts(wav, 2)).toEqual({ check: "ok", decode: "ok 1.00" });
  });

  test("a header that disagrees with itself is refused: block size against channels and bits", async () => {
    const cases = [
      fmtBody({ tag: 1, channels: 8, rateHz: 8_000, bits: 8, blockAlign: 1 }),
      fmtBody({ tag: 1, channels: 1, rateHz: 8_000, bits: 16, blockAlign: 3 }),
      fmtBody({ tag: MULAW, channels: 2, rateHz: 8_000, bits: 8, blockAlign: 1 }),
      fmtBody({ tag: IMA_ADPCM, channels: 1, rateHz: 8_000, bits: 4, blockAlign: 255 }),
      // ADPCM whose samples-per-block extension says 100 where the block holds 505.
      fmtBody({ tag: IMA_ADPCM, channels: 1, rateHz: 8_000, bits: 4, blockAlign: 256, extra: new Uint8Array([100, 0]) }),
    ];
    for (const fmt of cases) {
      const v = await verdicts(
        riffWav([
          ["fmt ", fmt],
          ["data", data],
        ]),
        602,
      );
      expect(v.check).toContain("disagrees with its");
      expect(v.decode).toBe(v.check);
    }
    const other = await verdicts(
      riffWav([
        ["fmt ", fmtBody({ tag: 0x55, rateHz: 8_000, bits: 8 })],
        ["data", data],
      ]),
      602,
    );
    expect(other.check).toContain("format tag 85");
    expect(other.decode).toBe(other.check);
  });

  test("A-law, µ-law and IMA ADPCM (mono and stereo, made by sox) decode as sox decodes them", async () => {
    const source = toneWav({ seconds: 1.5, rateHz: 8_000, channels: 2, amplitude: 0.5 });
    for (const options of [
      ["-e", "a-law"],
      ["-e", "u-law"],
      ["-e", "ima-adpcm"],
      ["-c", "1", "-e", "ima-adpcm"],
    ]) {
      const coded = await soxWav(scratch.dir, source, options);
      const reference = await soxWav(scratch.dir, coded, ["-e", "signed-integer", "-b", "16"]);
      const ours = await decodeAudio(coded);
      const theirs = await decodeAudio(reference);
      expect(ours.pcm.length).toBe(theirs.pcm.length);
      let worst = 0;
      for (let i = 0; i < ours.pcm.length; i++) worst = Math.max(worst, Math.abs(ours.pcm[i]! - theirs.pcm[i]!));
      expect(worst).toBeLessThan(0.002);
      expect(peakOf(ours.pcm)).toBeGreaterThan(0.4);
      await assertRecordingFits(coded, 2);
      expect((await verdicts(coded, 1)).check).toStartWith("AudioTooLongError");
    }
    expect(
      (
        await decodeAudio(
          riffWav([
            ["fmt ", fmtBody({ tag: ALAW, rateHz: 8_000, bits: 8 })],
            ["data", g711Tone("alaw", 2)],
          ]),
        )
      ).durationS,
    ).toBe(2);
  });

  test("the decoder's output budget stops it whatever the layout claimed", () => {
    const wav = riffWav([
      ["fmt ", fmt8k],
      ["data", g711Tone("mulaw", 60)],
    ]);
    const layout = parseWav(wav);
    // A layout that understates its length reaches the decoder only if a reader lied; the budget still holds.
    const lie = { ...layout, durationS: 1 };
    const budget = new OutputBudget(5);
    expect(() => decodeWav(wav, lie, budget)).toThrow(AudioTooLongError);
    expect(budget.taken).toBeLessThan((5 + 20) * 16_000); // stopped within one 20 s window
    expect(decodeWav(wav, layout, new OutputBudget(60)).length).toBe(60 * 16_000);
  });
});
