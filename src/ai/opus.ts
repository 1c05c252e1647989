/**
 * @module ai/opus
 * WebM/Opus and Ogg/Opus → 16 kHz mono PCM: `mediabunny` demuxes, `opus-decoder` (libopus in
 * WASM) decodes directly at 16 kHz, batch by batch as packets are demuxed. Bounded by the
 * recording limit three ways: packet timestamps, the packet count (every Opus packet is ≥ 2.5 ms;
 * a WebM's frames are counted from its EBML structure before demuxing, ai/webm-count), and the
 * decoded length.
 */
import { ALL_FORMATS, BufferSource, EncodedPacketSink, Input, type InputAudioTrack } from "mediabunny";
import { OpusDecoder, OpusDecoderWebWorker } from "opus-decoder";
import { AudioDecodeError, AudioTooLongError, MAX_CHANNELS, type OutputBudget, TARGET_SAMPLE_RATE_HZ, downmix, errorText, startsWith } from "./audio-common.ts";
import { countWebmFrames } from "./webm-count.ts";

// `opus-decoder` is marked side-effect free, and Bun's bundler then drops the module behind
// OpusDecoderWebWorker although the package's index still touches it, so the compiled binary
// fails to load. Holding a reference keeps it (TOOLCHAIN.md, "Audio").
const KEEP_FOR_BUNDLER: readonly unknown[] = [OpusDecoderWebWorker];
void KEEP_FOR_BUNDLER;

/** OpusHead (RFC 7845 §5.1): what the decoder needs from the container's codec private data. */
const OPUS_HEADER_RATE_HZ = 48_000;

type OpusHead = { channels: number; preSkip: number; streamCount?: number; coupledStreamCount?: number; channelMappingTable?: number[] };

function parseOpusHead(head: Uint8Array | undefined, fallbackChannels: number): OpusHead {
  if (head === undefined || head.length < 19 || !startsWith(head, "OpusHead")) {
    return { channels: fallbackChannels, preSkip: 0 };
  }
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const channels = head[9]!;
  // The header counts pre-skip at 48 kHz; the decoder drops that many samples at its output rate.
  const preSkip = Math.round((view.getUint16(10, true) * TARGET_SAMPLE_RATE_HZ) / OPUS_HEADER_RATE_HZ);
  if (head[18] === 0 || head.length < 21 + channels) return { channels, preSkip };
  return {
    channels,
    preSkip,
    streamCount: head[19]!,
    coupledStreamCount: head[20]!,
    channelMappingTable: [...head.subarray(21, 21 + channels)],
  };
}

/**
 * The shortest Opus packet is 2.5 ms (RFC 6716 §2.1.4), so a recording of `limitS` seconds has at
 * most this many packets. Container timestamps are the sender's word; the packet count is not.
 */
export function maxOpusPackets(limitS: number): number {
  return Math.ceil(limitS * 400);
}

/**
 * Refuses a WebM with more clusters + Opus frames than `limitS` can hold, from its EBML structure,
 * before the demuxer allocates anything per block (see ai/webm-count). Ogg is bounded while demuxing.
 * @throws AudioTooLongError
 */
export function assertPacketCountFits(bytes: Uint8Array, format: "webm" | "ogg", limitS: number): void {
  if (format !== "webm") return;
  const maxPackets = maxOpusPackets(limitS);
  const count = countWebmFrames(bytes, maxPackets);
  if (count !== null && count > maxPackets) throw new AudioTooLongError(limitS, count / 400);
}

/**
 * The primary audio track of a demuxed WebM or Ogg and its OpusHead: what both the upload check
 * (`assertRecordingFits`) and the decoder read before any packet.
 * @returns null when the container shows no audio track (damaged: the decoder refuses it)
 * @throws AudioDecodeError when the track is not Opus or has more than 8 channels
 */
export async function openOpusTrack(input: Input, name: string): Promise<{ track: InputAudioTrack; head: OpusHead } | null> {
  const track = await input.getPrimaryAudioTrack();
  if (track === null) return null;
  if (track.codec !== "opus") {
    throw new AudioDecodeError(`the ${name} audio uses codec ${track.codec ?? "unknown"}; only Opus is supported`);
  }
  const description = (await track.getDecoderConfig())?.description;
  const head = parseOpusHead(
    description === undefined
      ? undefined
      : ArrayBuffer.isView(description)
        ? new Uint8Array(description.buffer, description.byteOffset, description.byteLength)
        : new Uint8Array(description),
    track.numberOfChannels,
  );
  if (head.channels > MAX_CHANNELS) {
    throw new AudioDecodeError(`the ${name} file has ${head.channels} channels; 1 to ${MAX_CHANNELS} are accepted`);
  }
  return { track, head };
}

/** Opus packets decoded per call: ≤ 120 ms each, so one batch is at most ~30 s of audio. */
const OPUS_BATCH_FRAMES = 256;

/**
 * Demuxes and decodes in one pass, a batch of OPUS_BATCH_FRAMES packets at a time, so at most the
 * limit's PCM plus one batch of packets is ever held (a 10 MB WebM of a million 1-byte packets
 * stays flat). Stops with AudioTooLongError when a packet's timestamp or the packet count (see
 * `maxOpusPackets`) passes the limit, or when the decoded length passes `budget` (the bound that
 * holds whatever the timestamps claim).
 * @returns 16 kHz mono PCM
 * @throws AudioTooLongError; AudioDecodeError (no Opus track, damaged, too many channels)
 */
export async function decodeOpusContainer(bytes: Uint8Array, format: "webm" | "ogg", budget: OutputBudget): Promise<Float32Array> {
  const name = format === "webm" ? "WebM" : "Ogg";
  const { limitS } = budget;
  assertPacketCountFits(bytes, format, limitS);
  const input = new Input({ source: new BufferSource(bytes), formats: ALL_FORMATS });
  let decoder: OpusStream | undefined;
  try {
    const opus = await openOpusTrack(input, name);
    if (opus === null) throw new AudioDecodeError(`the ${name} file has no audio track`);
    const { track, head } = opus;
    decoder = new OpusStream(head, name, budget);
    await decoder.ready();
    const maxPackets = maxOpusPackets(limitS);
    let batch: Uint8Array[] = [];
    try {
      for await (const packet of new EncodedPacketSink(track).packets()) {
        // The container's timestamps let a long recording stop here; the count and decoding bound the rest.
        if (packet.timestamp > limitS) throw new AudioTooLongError(limitS, packet.timestamp);
        if (decoder.packets + batch.length >= maxPackets) throw new AudioTooLongError(limitS, (maxPackets + 1) / 400);
        batch.push(packet.data);
        if (batch.length === OPUS_BATCH_FRAMES) {
          decoder.decode(batch);
          batch = [];
        }
      }
    } catch (err) {
      // A recording cut off mid-upload still has its first packets: keep them, like ffmpeg does.
      if (decoder.packets + batch.length === 0 || err instanceof AudioDecodeError) throw err;
    }
    if (batch.length > 0) decoder.decode(batch);
    return decoder.finish();
  } catch (err) {
    if (err instanceof AudioDecodeError) throw err;
    throw new AudioDecodeError(`the ${name} file is damaged or truncated (${errorText(err)})`);
  } finally {
    decoder?.free();
    input.dispose();
  }
}

/**
 * One Opus stream decoded batch by batch into 16 kHz mono parts. `decode` charges each batch's
 * output to the budget, which throws AudioTooLongError as soon as it passes the limit, before the
 * batch is kept; `finish` joins the parts.
 */
class OpusStream {
  /** Packets given to `decode` so far. */
  packets = 0;
  private readonly decoder: OpusDecoder<16000>;
  private readonly parts: Float32Array[] = [];
  private total = 0;
  private errors = 0;
  private firstError: string | undefined;

  constructor(
    head: OpusHead,
    private readonly name: string,
    private readonly budget: OutputBudget,
  ) {
    this.decoder = new OpusDecoder({ sampleRate: TARGET_SAMPLE_RATE_HZ, ...head });
  }

  async ready(): Promise<void> {
    try {
      await this.decoder.ready;
    } catch (err) {
      throw new AudioDecodeError(`the ${this.name} file's Opus data could not be decoded (${errorText(err)})`);
    }
  }

  decode(batch: Uint8Array[]): void {
    this.packets += batch.length;
    let out: ReturnType<OpusDecoder<16000>["decodeFrames"]>;
    try {
      out = this.decoder.decodeFrames(batch);
    } catch (err) {
      throw new AudioDecodeError(`the ${this.name} file's Opus data could not be decoded (${errorText(err)})`);
    }
    this.errors += out.errors.length;
    this.firstError ??= out.errors[0]?.message;
    this.budget.take(out.samplesDecoded);
    this.total += out.samplesDecoded;
    // Copies: the decoder reuses its output buffers between calls.
    if (out.samplesDecoded > 0) this.parts.push(downmix(out.channelData.map((ch) => ch.slice(0, out.samplesDecoded))));
  }

  finish(): Float32Array {
    if (this.packets === 0) return new Float32Array(0);
    if (this.errors >= this.packets) {
      throw new AudioDecodeError(`the ${this.name} file's Opus data is damaged (${this.firstError ?? "no frame decoded"})`);
    }
    const pcm = new Float32Array(this.total);
    let offset = 0;
    for (const part of this.parts) {
      pcm.set(part, offset);
      offset += part.length;
    }
    return pcm;
  }

  free(): void {
    this.decoder.free();
  }
}
