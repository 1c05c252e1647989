/**
 * @module bench/redaction
 * PII redaction quality and speed (issue 25; docs/privacy.md "PII redaction",
 * docs/decisions/redaction.md).
 *
 * Quality on a labelled set (corpus/redaction/<set>.txt), per kind and per style: a detection is a
 * true positive when it overlaps a gold span of the same kind; precision = TP / detections,
 * recall = gold spans found / gold spans. "Covered" counts gold spans whose every character is
 * masked (by any kind): what matters for privacy. Baseline in the same run: every token wink-nlp
 * tags PROPN (not first in its sentence) taken as a name.
 *
 * Speed: µs per answer over the whole set, repeated.
 *
 *   npx bun bench/redaction.ts                 # dev set (the tuning set)
 *   npx bun bench/redaction.ts --set heldout   # held-out set (never tuned on)
 *   npx bun bench/redaction.ts --show          # print misses and false alarms (gold values are made up)
 */
import { parseArgs } from "node:util";
import winkNLP from "wink-nlp";
import model from "wink-eng-lite-web-model";
import { loadRedactionSet } from "../src/ai/redact/labelled-set.ts";
import { PII_KINDS, type PiiSpan, redactPii } from "../src/ai/redact/index.ts";

const { values: flags } = parseArgs({
  options: { set: { type: "string", default: "dev" }, show: { type: "boolean", default: false }, repeat: { type: "string", default: "50" } },
});
const set = loadRedactionSet(flags.set ?? "dev");
const overlaps = (a: PiiSpan, b: PiiSpan) => a.start < b.end && b.start < a.end;

type Tally = { tp: number; fp: number; gold: number; found: number; covered: number };
const blank = (): Tally => ({ tp: 0, fp: 0, gold: 0, found: 0, covered: 0 });
const tallies = new Map<string, Tally>();
const tally = (key: string) => tallies.get(key) ?? (tallies.set(key, blank()).get(key) as Tally);

function score(key: string, gold: PiiSpan[], found: PiiSpan[], text: string) {
  const t = tally(key);
  const show = flags.show && key === "ALL all";
  for (const f of found) {
    if (gold.some((g) => g.kind === f.kind && overlaps(g, f))) t.tp++;
    else {
      t.fp++;
      if (show) console.log(`  FALSE ${f.kind.padEnd(7)} ${JSON.stringify(text.slice(f.start, f.end))} in ${JSON.stringify(text)}`);
    }
  }
  for (const g of gold) {
    t.gold++;
    if (found.some((f) => f.kind === g.kind && overlaps(g, f))) t.found++;
    else if (show) console.log(`  MISSED ${g.kind.padEnd(6)} ${JSON.stringify(text.slice(g.start, g.end))} in ${JSON.stringify(text)}`);
    let covered = true;
    for (let i = g.start; i < g.end; i++) if (!found.some((f) => f.start <= i && i < f.end) && /\S/.test(text.charAt(i))) covered = false;
    if (covered) t.covered++;
  }
}

const nlp = winkNLP(model);
/** The rejected baseline: every PROPN that does not start a sentence, as a name. */
function winkProperNouns(text: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  nlp
    .readDoc(text)
    .sentences()
    .each((sentence: { tokens(): { out(its?: unknown): unknown } }) => {
      const values = sentence.tokens().out() as string[];
      const tags = sentence.tokens().out(nlp.its.pos) as string[];
      let from = text.indexOf(values[0] ?? "");
      values.forEach((v, i) => {
        const at = text.indexOf(v, from);
        if (at < 0) return;
        from = at + v.length;
        if (i > 0 && tags[i] === "PROPN" && /^[A-Z]/.test(v)) spans.push({ kind: "name", start: at, end: at + v.length });
      });
    });
  return spans;
}

for (const ex of set) {
  const { found } = redactPii(ex.text, { language: "en" });
  for (const kind of PII_KINDS) {
    const g = ex.gold.filter((s) => s.kind === kind);
    const f = found.filter((s) => s.kind === kind);
    score(`${kind} all`, g, f, ex.text);
    score(`${kind} ${ex.style}`, g, f, ex.text);
  }
  score("ALL all", ex.gold, found, ex.text);
  score(
    "name-baseline(wink PROPN) all",
    ex.gold.filter((s) => s.kind === "name"),
    winkProperNouns(ex.text),
    ex.text,
  );
}

const pct = (n: number, d: number) => (d === 0 ? "   –  " : `${((100 * n) / d).toFixed(1).padStart(5)}%`);
const lines = set.length;
const golds = set.reduce((n, e) => n + e.gold.length, 0);
console.log(
  `set ${flags.set}: ${lines} lines (${set.filter((e) => e.style === "spoken").length} spoken), ${golds} gold spans, ${set.filter((e) => e.gold.length === 0).length} lines without PII`,
);
console.log("kind/style                      gold  found  false  precision  recall  covered");
for (const [key, t] of [...tallies].sort()) {
  if (t.gold === 0 && t.tp + t.fp === 0) continue;
  console.log(
    `${key.padEnd(31)} ${String(t.gold).padStart(4)} ${String(t.found).padStart(6)} ${String(t.fp).padStart(6)}  ${pct(t.tp, t.tp + t.fp)}     ${pct(t.found, t.gold)} ${pct(t.covered, t.gold)}`,
  );
}

const repeat = Number(flags.repeat);
const started = performance.now();
for (let r = 0; r < repeat; r++) for (const ex of set) redactPii(ex.text, { language: "en" });
const us = ((performance.now() - started) * 1000) / (repeat * lines);
const long = "I spoke to Dave at the front desk, call me on 07700 900123 or mail j.smith@example.com. ".repeat(1200);
const t0 = performance.now();
redactPii(long);
console.log(
  `speed: ${us.toFixed(1)} µs per answer (mean over ${repeat}×${lines}); ${(long.length / 1024).toFixed(0)} KiB text in ${(performance.now() - t0).toFixed(0)} ms`,
);
