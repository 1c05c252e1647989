/**
 * @module test/helpers/pause-clips
 * Real clips with pauses and noise for the voice-activity tests and bench (issue 27): espeak-ng
 * speech, silences and sox white noise, assembled by sox as 16 kHz mono 16-bit WAV. Needs the
 * Debian packages espeak-ng and sox.
 */
import path from "node:path";

function sox(args: string[]): void {
  if (Bun.which("sox") === null) throw new Error("sox is not installed: the voice-activity tests need the Debian package sox");
  const result = Bun.spawnSync(["sox", ...args]);
  if (result.exitCode !== 0) throw new Error(`sox ${args.join(" ")} failed: ${result.stderr.toString()}`);
}

/** A part of a clip: spoken words, digital silence, or white noise at `amplitude` (0–1). */
export type ClipPart = { say: string } | { silenceS: number } | { noiseS: number; amplitude: number };

/**
 * Writes the parts one after the other to `<dir>/<name>.wav` (16 kHz mono 16-bit) and, when
 * `noiseAmplitude` is given, mixes white noise of that amplitude under the whole clip (sox -m
 * halves both inputs, so speech is at half its level too).
 * @returns the WAV's path, where each part starts and ends, and where the words of each `say`
 *   part really are (first to last sample louder than 1 % of full scale, before any noise), seconds.
 */
export function pauseClip(
  dir: string,
  name: string,
  parts: ClipPart[],
  noiseAmplitude?: number,
): { file: string; spans: [number, number][]; words: [number, number][] } {
  const files: string[] = [];
  const spans: [number, number][] = [];
  const words: [number, number][] = [];
  let at = 0;
  parts.forEach((part, i) => {
    const file = path.join(dir, `${name}-part${i}.wav`);
    if ("say" in part) {
      const raw = path.join(dir, `${name}-part${i}-raw.wav`);
      const espeak = Bun.spawnSync(["espeak-ng", "-w", raw, part.say]);
      if (espeak.exitCode !== 0) throw new Error(`espeak-ng failed: ${espeak.stderr.toString()}`);
      sox([raw, "-r", "16000", "-c", "1", "-b", "16", file]);
    } else if ("silenceS" in part) sox(["-n", "-r", "16000", "-c", "1", "-b", "16", file, "trim", "0", String(part.silenceS)]);
    else sox(["-n", "-r", "16000", "-c", "1", "-b", "16", file, "synth", String(part.noiseS), "whitenoise", "vol", String(part.amplitude)]);
    const raw = Bun.spawnSync(["sox", file, "-t", "raw", "-e", "signed-integer", "-b", "16", "-"]).stdout;
    const samples = new Int16Array(raw.buffer, raw.byteOffset, Math.floor(raw.byteLength / 2));
    const seconds = samples.length / 16000;
    if ("say" in part) {
      const loud = (x: number) => Math.abs(x) > 328;
      words.push([at + samples.findIndex(loud) / 16000, at + samples.findLastIndex(loud) / 16000]);
    }
    spans.push([at, at + seconds]);
    at += seconds;
    files.push(file);
  });
  const joined = path.join(dir, `${name}-joined.wav`);
  if (files.length === 1) sox([files[0]!, joined]);
  else sox([...files, joined]);
  if (noiseAmplitude === undefined) return { file: joined, spans, words };
  const noise = path.join(dir, `${name}-noise.wav`);
  sox(["-n", "-r", "16000", "-c", "1", "-b", "16", noise, "synth", String(at), "whitenoise", "vol", String(noiseAmplitude)]);
  const mixed = path.join(dir, `${name}.wav`);
  sox(["-m", joined, noise, mixed]);
  return { file: mixed, spans, words };
}
