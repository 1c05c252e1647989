/**
 * @module ai/redact/labelled-set
 * Reads the redaction labelled set (corpus/redaction/{dev,heldout}.txt; issue 25): one example a
 * line, `typed|spoken<TAB>text`, gold values written inline as `[[kind:value]]`.
 */
import fs from "node:fs";
import path from "node:path";
import { PII_KINDS, type PiiKind, type PiiSpan } from "./types.ts";

export interface LabelledExample {
  style: "typed" | "spoken";
  /** The text with the markup removed. */
  text: string;
  /** Gold spans into `text`. */
  gold: PiiSpan[];
}

const MARK = /\[\[([a-z]+):([^\]]+)\]\]/g;

/** Parses one line's text part; throws on an unknown kind so a typo in the corpus cannot pass silently. */
export function parseLabelled(marked: string): { text: string; gold: PiiSpan[] } {
  let text = "";
  let at = 0;
  const gold: PiiSpan[] = [];
  for (const m of marked.matchAll(MARK)) {
    const [, kind = "", value = ""] = m;
    if (!(PII_KINDS as readonly string[]).includes(kind)) throw new Error(`unknown kind ${kind}`);
    text += marked.slice(at, m.index);
    gold.push({ kind: kind as PiiKind, start: text.length, end: text.length + value.length });
    text += value;
    at = m.index + m[0].length;
  }
  return { text: text + marked.slice(at), gold };
}

/** Loads a set by name (`dev` or `heldout`). */
export function loadRedactionSet(name: string): LabelledExample[] {
  const file = path.resolve(import.meta.dir, "../../../corpus/redaction", `${name}.txt`);
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() && !l.startsWith("#"))
    .map((line) => {
      const [style, marked] = line.split("\t");
      if ((style !== "typed" && style !== "spoken") || marked === undefined) throw new Error(`bad line: ${line.slice(0, 40)}`);
      return { style, ...parseLabelled(marked) };
    });
}
