/**
 * @module scripts/insights-corpus
 * Builds the insights corpus JSONL files from their hand-written source in
 * `corpus/insights/raw/` (docs/insights.md). Format only: every text is written by hand.
 *
 * Source format, one answer a line:
 *   `## <domain>`              starts a block of answers of that domain
 *   `<s><a> <style> <text>`    s: `+` positive, `=` neutral, `-` negative; a: `A` actionable, `.` not;
 *                              style: ty sp tp np im mx rq cp ng sc (see STYLE_CODES)
 * Files named `heldout-*.txt` make `corpus/insights/heldout.jsonl`, `train-*.txt` make
 * `corpus/insights/train.jsonl`, `heldout-voices-*.txt` make `corpus/insights/heldout-voices.jsonl`
 * (the second held-out set, in voices unlike the training corpus, written before the vector
 * features existed; never used for tuning). Ids are `<set>-<domain>-<n>` in file order.
 *
 *   npx bun scripts/insights-corpus.ts          # writes both files
 *   npx bun scripts/insights-corpus.ts --check  # fails when a written file is out of date
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.join(import.meta.dir, "..", "corpus", "insights");
const DOMAINS = new Set(["apps", "saas", "support", "restaurants", "hotels", "deliveries", "retail", "hardware", "healthcare", "public", "events", "employee"]);
const STYLE_CODES: Record<string, string> = {
  ty: "typed",
  sp: "spoken",
  tp: "typos",
  np: "nps",
  im: "implicit",
  mx: "mixed",
  rq: "request",
  cp: "comparison",
  ng: "negation",
  sc: "sarcasm",
  nn: "non-native",
  tr: "terse",
  fc: "factual-complaint",
};
const SENTIMENTS: Record<string, string> = { "+": "positive", "=": "neutral", "-": "negative" };

type CorpusSet = "heldout" | "train" | "heldout-voices";

/** Parses the source files of one set into JSONL text; throws on a malformed line. */
function build(set: CorpusSet): string {
  const files = readdirSync(path.join(ROOT, "raw"))
    .filter((f) => f.startsWith(`${set}-`) && f.endsWith(".txt") && (set !== "heldout" || !f.startsWith("heldout-voices-")))
    .sort();
  const counters = new Map<string, number>();
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const file of files) {
    let domain = "";
    readFileSync(path.join(ROOT, "raw", file), "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (line.trim() === "") return;
        const where = `${file}:${i + 1}`;
        if (line.startsWith("## ")) {
          domain = line.slice(3).trim();
          if (!DOMAINS.has(domain)) throw new Error(`${where}: unknown domain ${domain}`);
          return;
        }
        const m = /^([+=-])([A.]) ([a-z]{2}) (.+)$/.exec(line);
        if (!m || !domain) throw new Error(`${where}: malformed line`);
        const style = STYLE_CODES[m[3]!];
        if (!style) throw new Error(`${where}: unknown style ${m[3]}`);
        const text = m[4]!.trim();
        if (seen.has(text.toLowerCase())) throw new Error(`${where}: duplicate text`);
        seen.add(text.toLowerCase());
        const n = (counters.get(domain) ?? 0) + 1;
        counters.set(domain, n);
        const id = `${set}-${domain}-${String(n).padStart(4, "0")}`;
        lines.push(JSON.stringify({ id, text, sentiment: SENTIMENTS[m[1]!], actionable: m[2] === "A", domain, style }));
      });
  }
  return lines.join("\n") + "\n";
}

const check = process.argv.includes("--check");
for (const set of ["heldout", "train", "heldout-voices"] as const) {
  const text = build(set);
  const out = path.join(ROOT, `${set}.jsonl`);
  if (text.trim() === "") continue;
  if (check) {
    if (readFileSync(out, "utf8") !== text) throw new Error(`${out} is out of date: run scripts/insights-corpus.ts`);
  } else {
    writeFileSync(out, text);
    console.log(`${path.relative(process.cwd(), out)}: ${text.trim().split("\n").length} answers`);
  }
}
