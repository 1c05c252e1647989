/**
 * @module test/helpers/ggml-fixture
 * Writes a tiny random-weight Whisper in whisper.cpp's ggml file format (~7 MB, f16), steered
 * like the ONNX fixture (../shared/models/fixture/whisper-tiny-random) so that whisper.cpp
 * transcribes any audio window it is given as {@link GGML_FIXTURE_TEXT}, one segment per 30 s
 * window: `<|0.00|> This is a fixture transcript.<|30.00|><|endoftext|>`. Silence never reaches
 * it when the VAD step is on (ai/vad.ts), as with the ONNX fixture.
 *
 * Reproducible: a fixed-seed PRNG, so the same bytes every time (no file in the repository).
 * Steering (the approach of ../shared/bench/asr/make_models.py): the decoder's positional
 * embedding row p is 500 × the token embedding of the token to predict at position p, which
 * outweighs the random layers (N(0, 0.02)); the final LayerNorm's gain (10) and 4× longer
 * embedding rows for the steered tokens make each pick nearly certain (log-probability ≈ 0), so
 * whisper.cpp's temperature fallback never triggers and greedy decoding is deterministic.
 * The vocabulary holds only the six words used and three that whisper.cpp looks up by text;
 * whisper.cpp names the other ids itself.
 *
 * Dimensions: 1 encoder and 1 decoder layer, 64 wide, 1 head, 80 mel bins, 1500 audio frames
 * (30 s, which whisper.cpp's windowing needs), 448 text positions, 51864 (English-only) or 51865
 * (multilingual) tokens.
 *
 *   bun test/helpers/ggml-fixture.ts OUT.bin [--multilingual]
 */
import fs from "node:fs";

/** What the fixture transcribes every non-silent window as (the same text as the ONNX fixture). */
export const GGML_FIXTURE_TEXT = "This is a fixture transcript.";
/** The multilingual fixture's detected language (its first decoder step favours `<|de|>`). */
export const GGML_FIXTURE_DETECTED_LANGUAGE = "de";

const WORDS = [" This", " is", " a", " fixture", " transcript", "."];
/** Tokens whisper.cpp looks up by text when it suppresses blanks and non-speech (`token_to_id.at`). */
const LOOKED_UP = [" ", " -", " '"];
const D = 64;
const HEADS = 1;
const LAYERS = 1;
const N_MELS = 80;
const N_AUDIO_CTX = 1500;
const N_TEXT_CTX = 448;
const N_FFT_BINS = 201;
const FTYPE_F16 = 1;
const TYPE_F32 = 0;
const TYPE_F16 = 1;

/** mulberry32: a small seeded PRNG; Box–Muller turns it into N(0, 1). */
function normalSource(seed: number): () => number {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

type Tensor = { name: string; shape: number[]; data: Float32Array; type: number };

/**
 * Writes the fixture to `file`.
 * @param opts.multilingual 51865 tokens (languages, translate); detection answers "de".
 * @returns the file's size in bytes
 */
export function writeGgmlFixture(file: string, opts: { multilingual?: boolean } = {}): number {
  const multilingual = opts.multilingual ?? false;
  const nVocab = multilingual ? 51865 : 51864;
  // whisper.cpp's special ids (src/whisper.cpp whisper_vocab; +1 each in a multilingual vocabulary).
  const shift = multilingual ? 1 : 0;
  const eot = 50256 + shift;
  const sot = 50257 + shift;
  const tsBegin = 50363 + shift; // <|0.00|>
  const tsEnd = tsBegin + 1500; // <|30.00|>
  const langDe = sot + 1 + 2; // whisper's language order: en, zh, de, …

  const normal = normalSource(27);
  const rnd = (n: number, sd = 0.02) => Float32Array.from({ length: n }, () => normal() * sd);
  const tensors: Tensor[] = [];
  const add = (name: string, shape: number[], data: Float32Array, is2d = shape.length >= 2) =>
    tensors.push({ name, shape, data, type: is2d ? TYPE_F16 : TYPE_F32 });
  const linear = (p: string, out: number, inp: number, bias = true) => {
    add(`${p}.weight`, [out, inp], rnd(out * inp));
    if (bias) add(`${p}.bias`, [out], new Float32Array(out));
  };
  const norm = (p: string, gain = 1) => {
    add(`${p}.weight`, [D], new Float32Array(D).fill(gain));
    add(`${p}.bias`, [D], new Float32Array(D));
  };
  const attention = (p: string) => {
    linear(`${p}.query`, D, D);
    linear(`${p}.key`, D, D, false);
    linear(`${p}.value`, D, D);
    linear(`${p}.out`, D, D);
  };
  const mlp = (p: string) => {
    linear(`${p}.0`, 4 * D, D);
    linear(`${p}.2`, D, 4 * D);
  };

  add("encoder.conv1.weight", [D, N_MELS, 3], rnd(D * N_MELS * 3));
  tensors.push({ name: "encoder.conv1.bias", shape: [D, 1], data: new Float32Array(D), type: TYPE_F32 });
  add("encoder.conv2.weight", [D, D, 3], rnd(D * D * 3));
  tensors.push({ name: "encoder.conv2.bias", shape: [D, 1], data: new Float32Array(D), type: TYPE_F32 });
  const encPos = new Float32Array(N_AUDIO_CTX * D);
  for (let t = 0; t < N_AUDIO_CTX; t++) {
    for (let i = 0; i < D / 2; i++) {
      const angle = t * Math.exp((-Math.log(10000) / (D / 2 - 1)) * i);
      encPos[t * D + i] = Math.sin(angle);
      encPos[t * D + D / 2 + i] = Math.cos(angle);
    }
  }
  tensors.push({ name: "encoder.positional_embedding", shape: [N_AUDIO_CTX, D], data: encPos, type: TYPE_F32 });
  for (let i = 0; i < LAYERS; i++) {
    attention(`encoder.blocks.${i}.attn`);
    norm(`encoder.blocks.${i}.attn_ln`);
    mlp(`encoder.blocks.${i}.mlp`);
    norm(`encoder.blocks.${i}.mlp_ln`);
  }
  norm("encoder.ln_post");

  // The token to predict from each decoder position (see the module comment).
  const words = WORDS.map((_, i) => i);
  const prompt = multilingual ? [langDe, sot, tsBegin] : [tsBegin]; // positions 0..: after <|sot|>(, lang, task)
  const steer = [...prompt, ...words, tsEnd];
  const target = Array.from({ length: N_TEXT_CTX }, (_, p) => steer[p] ?? eot);
  const embedding = rnd(nVocab * D);
  for (const id of new Set(target)) for (let j = 0; j < D; j++) embedding[id * D + j]! *= 4;
  add("decoder.token_embedding.weight", [nVocab, D], embedding);
  const decPos = new Float32Array(N_TEXT_CTX * D);
  for (let p = 0; p < N_TEXT_CTX; p++) for (let j = 0; j < D; j++) decPos[p * D + j] = 500 * embedding[target[p]! * D + j]!;
  tensors.push({ name: "decoder.positional_embedding", shape: [N_TEXT_CTX, D], data: decPos, type: TYPE_F32 });
  for (let i = 0; i < LAYERS; i++) {
    attention(`decoder.blocks.${i}.attn`);
    norm(`decoder.blocks.${i}.attn_ln`);
    attention(`decoder.blocks.${i}.cross_attn`);
    norm(`decoder.blocks.${i}.cross_attn_ln`);
    mlp(`decoder.blocks.${i}.mlp`);
    norm(`decoder.blocks.${i}.mlp_ln`);
  }
  norm("decoder.ln", 10);

  const parts: Uint8Array[] = [];
  const ints = (...values: number[]) => parts.push(new Uint8Array(Int32Array.from(values).buffer));
  ints(0x67676d6c, nVocab, N_AUDIO_CTX, D, HEADS, LAYERS, N_TEXT_CTX, D, HEADS, LAYERS, N_MELS, FTYPE_F16);
  ints(N_MELS, N_FFT_BINS);
  parts.push(new Uint8Array(N_MELS * N_FFT_BINS * 4)); // mel filters: unused by a model that ignores the audio
  ints(WORDS.length + LOOKED_UP.length);
  for (const w of [...WORDS, ...LOOKED_UP]) {
    const bytes = new TextEncoder().encode(w);
    parts.push(new Uint8Array(Uint32Array.from([bytes.length]).buffer), bytes);
  }
  for (const t of tensors) {
    const name = new TextEncoder().encode(t.name);
    ints(t.shape.length, name.length, t.type, ...[...t.shape].reverse()); // ggml: fastest dimension first
    parts.push(name);
    parts.push(new Uint8Array(t.type === TYPE_F16 ? Float16Array.from(t.data).buffer : t.data.slice().buffer));
  }
  const out = Buffer.concat(parts);
  fs.writeFileSync(file, out);
  return out.length;
}

if (import.meta.main) {
  const file = process.argv[2];
  if (!file) {
    console.error("usage: bun test/helpers/ggml-fixture.ts OUT.bin [--multilingual]");
    process.exit(2);
  }
  const bytes = writeGgmlFixture(file, { multilingual: process.argv.includes("--multilingual") });
  console.log(`${file}: ${(bytes / 1024 / 1024).toFixed(1)} MB`);
}
