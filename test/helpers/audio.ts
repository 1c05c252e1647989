/**
 * @module test/helpers/audio
 * Spoken test audio: espeak-ng says the text, sox turns it into the 48 kHz mono 16-bit WAV that
 * Chromium's fake capture device (`--use-file-for-fake-audio-capture`) plays in a loop.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

async function run(cmd: string[]): Promise<void> {
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`${cmd[0]} exited with ${code}: ${stderr.trim()}`);
}

/**
 * Writes `text` spoken by espeak-ng to `file` as a 48 kHz mono 16-bit PCM WAV, with
 * `padSeconds` of silence after the speech (so the fake microphone's loop has a pause).
 * @throws Error when espeak-ng or sox fails (both are Debian packages the tests need)
 */
export async function makeSpeechWav(text: string, file: string, padSeconds = 0.5): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "earshot-wav-"));
  try {
    const raw = path.join(dir, "speech.wav");
    await run(["espeak-ng", "-s", "150", "-w", raw, text]);
    await run(["sox", raw, "-r", "48000", "-c", "1", "-b", "16", "-e", "signed-integer", file, "pad", "0.2", String(padSeconds)]);
    return file;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Length in seconds of a canonical 44-byte-header PCM WAV (as {@link makeSpeechWav} writes). */
export async function wavDurationSeconds(file: string): Promise<number> {
  const header = new DataView(await Bun.file(file).slice(0, 44).arrayBuffer());
  const byteRate = header.getUint32(28, true);
  const dataBytes = header.getUint32(40, true);
  return dataBytes / byteRate;
}
