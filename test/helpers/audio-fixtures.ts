/**
 * @module test/helpers/audio-fixtures
 * Real audio for the audio tests (src/ai, processing, integration): speech from espeak-ng, Ogg/Opus from opusenc, the
 * committed Chromium WebM recording, and synthetic WAVs written with wavefile. Needs the Debian
 * packages `espeak-ng` and `opus-tools` (CI installs them; tests install nothing).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  ALL_FORMATS,
  BufferSource,
  BufferTarget,
  EncodedAudioPacketSource,
  EncodedPacket,
  EncodedPacketSink,
  Input,
  OggOutputFormat,
  Output,
  WebMOutputFormat,
} from "mediabunny";
import { WaveFile } from "wavefile";

// The fixtures are named once, in test/helpers/fixtures.ts.
import { FIXTURE_ASR_MODEL, FIXTURE_MODELS_DIR, WEBM_FIXTURE_PATH } from "./fixtures.ts";

export {
  FIXTURE_ASR_MODEL,
  FIXTURE_MODELS_DIR,
  FIXTURE_TRANSCRIPT,
  HEARING_ASR_MODEL,
  HEARING_MODELS_DIR,
  WEBM_FIXTURE_DURATION_S,
  WEBM_FIXTURE_PATH,
} from "./fixtures.ts";

/**
 * A copy of the fixture Whisper whose generation config is multilingual (`lang_to_id`,
 * `task_to_id`; its tokenizer already has Whisper's language and task tokens), as
 * `<dir>/models/whisper-multilingual-random`.
 * @returns the models directory holding it (`<dir>/models`).
 */
export function multilingualWhisperFixture(dir: string): string {
  const model = path.join(dir, "models", "whisper-multilingual-random");
  cpSync(path.join(FIXTURE_MODELS_DIR, FIXTURE_ASR_MODEL), model, { recursive: true });
  const tokens = (JSON.parse(readFileSync(path.join(model, "tokenizer.json"), "utf8")) as { added_tokens: { id: number; content: string }[] }).added_tokens;
  const id = (content: string) => tokens.find((t) => t.content === content)!.id;
  const languages = tokens.filter((t) => /^<\|[a-z]{2,3}\|>$/.test(t.content));
  const configPath = path.join(model, "generation_config.json");
  const config = JSON.parse(readFileSync(configPath, "utf8"));
  Object.assign(config, {
    is_multilingual: true,
    lang_to_id: Object.fromEntries(languages.map((t) => [t.content, t.id])),
    task_to_id: { transcribe: id("<|transcribe|>"), translate: id("<|translate|>") },
  });
  writeFileSync(configPath, JSON.stringify(config));
  return path.dirname(model);
}

/** A scratch folder; call `remove()` when done. */
export function makeScratchDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), "earshot-ai-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function run(cmd: string[], debianPackage: string): void {
  if (Bun.which(cmd[0]!) === null) {
    throw new Error(`${cmd[0]} is not installed: the AI tests need the Debian package ${debianPackage}`);
  }
  const result = Bun.spawnSync(cmd);
  if (result.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed: ${result.stderr.toString()}`);
}

/** espeak-ng speaking `text`: 22.05 kHz mono 16-bit WAV bytes. */
export async function speechWav(dir: string, text = "hello there"): Promise<Uint8Array> {
  const out = path.join(dir, `speech-${crypto.randomUUID()}.wav`);
  run(["espeak-ng", "-w", out, text], "espeak-ng");
  return new Uint8Array(await Bun.file(out).arrayBuffer());
}

/** The given WAV bytes encoded by opusenc as Ogg/Opus. */
export async function oggOpusOf(dir: string, wav: Uint8Array): Promise<Uint8Array> {
  const input = path.join(dir, `in-${crypto.randomUUID()}.wav`);
  const out = path.join(dir, `out-${crypto.randomUUID()}.opus`);
  await Bun.write(input, wav);
  run(["opusenc", "--quiet", input, out], "opus-tools");
  return new Uint8Array(await Bun.file(out).arrayBuffer());
}

/** The committed WebM/Opus recording. */
export async function webmFixture(): Promise<Uint8Array> {
  return new Uint8Array(await Bun.file(WEBM_FIXTURE_PATH).arrayBuffer());
}

/**
 * A synthetic WAV: `channels` × `seconds` at `rateHz`, a 440 Hz tone of `amplitude` (0 = digital
 * silence), stored as signed `bitDepth` ("16", "24", "32f"…).
 */
export function toneWav(opts: { seconds: number; rateHz: number; channels?: number; amplitude?: number; bitDepth?: string }): Uint8Array {
  const { seconds, rateHz, channels = 1, amplitude = 0.5, bitDepth = "16" } = opts;
  const length = Math.round(seconds * rateHz);
  const isFloat = bitDepth === "32f" || bitDepth === "64";
  const fullScale = isFloat ? 1 : 2 ** (Number.parseInt(bitDepth, 10) - 1) - 1;
  const samples = Float64Array.from({ length }, (_, i) => {
    const x = amplitude * fullScale * Math.sin((2 * Math.PI * 440 * i) / rateHz);
    return isFloat ? x : Math.round(x);
  });
  const wav = new WaveFile();
  wav.fromScratch(channels, rateHz, bitDepth, channels === 1 ? samples : Array.from({ length: channels }, () => samples));
  return wav.toBuffer();
}

/** Largest absolute sample. */
export function peakOf(pcm: Float32Array): number {
  let peak = 0;
  for (const x of pcm) peak = Math.max(peak, Math.abs(x));
  return peak;
}

/** WAV duration from its header, in seconds (for comparing decoders against the source). */
export function wavDurationS(wav: Uint8Array): number {
  const file = new WaveFile(wav);
  const fmt = file.fmt as { numChannels: number; sampleRate: number; blockAlign: number };
  return (file.data as { chunkSize: number }).chunkSize / fmt.blockAlign / fmt.sampleRate;
}

/**
 * An 8-bit unsigned PCM mono WAV declaring `rateHz`, with `dataBytes` bytes of silence (128): a
 * header can declare any rate and length, e.g. the 1 MB, 100 Hz "decompression bomb".
 * `formatTag` 6 or 7 makes it A-law or µ-law (the bytes are then companded samples).
 */
export function pcm8Wav(rateHz: number, dataBytes: number, formatTag = 1): Uint8Array {
  const bytes = new Uint8Array(44 + dataBytes).fill(128, 44);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) => [...text].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, "RIFF");
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, formatTag, true); // 1 PCM (6 A-law, 7 µ-law)
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, rateHz, true);
  view.setUint32(28, rateHz, true); // byte rate
  view.setUint16(32, 1, true); // block align
  view.setUint16(34, 8, true); // bits
  ascii(36, "data");
  view.setUint32(40, dataBytes, true);
  return bytes;
}

/**
 * The Opus packets of an Ogg/Opus file re-muxed (not re-encoded) into WebM with mediabunny.
 * `squeeze` rewrites every timestamp to 1 ms apart, so the container claims a fraction of the
 * real length: only decoding can tell how long it is.
 */
export async function webmOfOgg(ogg: Uint8Array, opts: { squeeze?: boolean } = {}): Promise<Uint8Array> {
  return remuxOpus(ogg, "webm", opts);
}

/**
 * The Opus packets of an Ogg/Opus file re-muxed into WebM or Ogg; `squeeze` as in {@link webmOfOgg}
 * (for Ogg: granule positions 1 ms apart, so the container claims a fraction of the real length).
 */
export async function remuxOpus(ogg: Uint8Array, to: "webm" | "ogg", opts: { squeeze?: boolean } = {}): Promise<Uint8Array> {
  const input = new Input({ source: new BufferSource(ogg), formats: ALL_FORMATS });
  const track = (await input.getPrimaryAudioTrack())!;
  const decoderConfig = (await track.getDecoderConfig())!;
  const output = new Output({ format: to === "webm" ? new WebMOutputFormat() : new OggOutputFormat(), target: new BufferTarget() });
  const source = new EncodedAudioPacketSource("opus");
  output.addAudioTrack(source);
  await output.start();
  let n = 0;
  for await (const packet of new EncodedPacketSink(track).packets()) {
    const copy = opts.squeeze ? packet.clone({ timestamp: n / 1000, duration: 0.001 }) : packet;
    await source.add(copy, n === 0 ? { decoderConfig } : undefined);
    n++;
  }
  await output.finalize();
  input.dispose();
  return new Uint8Array(output.target.buffer!);
}

/**
 * A WebM "packet flood": `count` one-byte Opus packets (TOC 0xf8: one 20 ms CELT frame, no data),
 * every one stamped at 0 s, so the container claims no length at all. 10 bytes a packet.
 */
export async function webmFlood(count: number): Promise<Uint8Array> {
  const output = new Output({ format: new WebMOutputFormat(), target: new BufferTarget() });
  const source = new EncodedAudioPacketSource("opus");
  output.addAudioTrack(source);
  await output.start();
  const head = new Uint8Array(19);
  head.set(new TextEncoder().encode("OpusHead"));
  head[8] = 1; // version
  head[9] = 1; // channels
  new DataView(head.buffer).setUint32(12, 48_000, true);
  const decoderConfig = { codec: "opus" as const, numberOfChannels: 1, sampleRate: 48_000, description: head };
  const data = new Uint8Array([0xf8]);
  for (let i = 0; i < count; i++) {
    await source.add(new EncodedPacket(data, "key", 0, 0.02), i === 0 ? { decoderConfig } : undefined);
  }
  await output.finalize();
  return new Uint8Array(output.target.buffer!);
}

/** A RIFF/WAVE file of the given chunks, in order, each padded to an even size (RIFF 1.0). */
export function riffWav(chunks: Array<[id: string, body: Uint8Array]>): Uint8Array {
  const total = 12 + chunks.reduce((n, [, body]) => n + 8 + body.length + (body.length & 1), 0);
  const bytes = new Uint8Array(total);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) => [...text].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, "RIFF");
  view.setUint32(4, total - 8, true);
  ascii(8, "WAVE");
  let at = 12;
  for (const [id, body] of chunks) {
    ascii(at, id);
    view.setUint32(at + 4, body.length, true);
    bytes.set(body, at + 8);
    at += 8 + body.length + (body.length & 1);
  }
  return bytes;
}

/**
 * A `fmt ` chunk's body: format `tag` (1 PCM, 3 float, 6 A-law, 7 µ-law, 0x11 IMA ADPCM),
 * `channels`, `rateHz`, `bits`; `blockAlign` defaults to channels × bits / 8. `extra` is appended
 * after a cbSize field giving its length (e.g. ADPCM's samples per block).
 */
export function fmtBody(o: { tag: number; channels?: number; rateHz: number; bits: number; blockAlign?: number; extra?: Uint8Array }): Uint8Array {
  const channels = o.channels ?? 1;
  const blockAlign = o.blockAlign ?? (channels * o.bits) / 8;
  const body = new Uint8Array(o.extra ? 18 + o.extra.length : 16);
  const view = new DataView(body.buffer);
  view.setUint16(0, o.tag, true);
  view.setUint16(2, channels, true);
  view.setUint32(4, o.rateHz, true);
  view.setUint32(8, Math.round((o.rateHz * blockAlign) / Math.max(1, o.tag === 0x11 ? 505 : 1)), true);
  view.setUint16(12, blockAlign, true);
  view.setUint16(14, o.bits, true);
  if (o.extra) {
    view.setUint16(16, o.extra.length, true);
    body.set(o.extra, 18);
  }
  return body;
}

/** `sox` (Debian package sox) converting `input` with its output options, e.g. ["-e", "ima-adpcm"]. */
export async function soxWav(dir: string, input: Uint8Array, outputOptions: string[]): Promise<Uint8Array> {
  const from = path.join(dir, `sox-in-${crypto.randomUUID()}.wav`);
  const out = path.join(dir, `sox-out-${crypto.randomUUID()}.wav`);
  await Bun.write(from, input);
  run(["sox", from, ...outputOptions, out], "sox");
  return new Uint8Array(await Bun.file(out).arrayBuffer());
}

/** Ogg's page checksum (RFC 3533 §6: CRC-32, polynomial 0x04c11db7, MSB first, initial 0). */
function oggCrc(page: Uint8Array): number {
  let crc = 0;
  for (const byte of page) {
    crc ^= byte << 24;
    for (let k = 0; k < 8; k++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
  }
  return crc >>> 0;
}

/**
 * An Ogg/Opus file whose granule positions lie: every audio page claims to end 1 ms after the
 * one before (checksums rewritten), so the container says a fraction of what its packets hold.
 */
export function oggSqueezed(ogg: Uint8Array): Uint8Array {
  const out = ogg.slice();
  const view = new DataView(out.buffer);
  let audioPages = 0;
  for (let at = 0; at + 27 <= out.length; ) {
    const segments = out[at + 26]!;
    let size = 27 + segments;
    for (let i = 0; i < segments; i++) size += out[at + 27 + i]!;
    const granule = view.getBigInt64(at + 6, true);
    // The two header pages (OpusHead, OpusTags) carry granule 0; audio pages are rewritten.
    if (granule > 0n) view.setBigInt64(at + 6, BigInt(48 * ++audioPages), true);
    view.setUint32(at + 22, 0, true);
    view.setUint32(at + 22, oggCrc(out.subarray(at, at + size)), true);
    at += size;
  }
  return out;
}
