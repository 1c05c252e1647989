/**
 * @module ai/redact/spoken
 * Spoken digits as digits (issue 25). Transcripts write numbers the way people say them
 * ("oh seven seven double oh nine hundred one two three"); the number detectors read digits. This
 * builds a shadow of the text in which each run of at least {@link MIN_DIGITS} spoken digits is
 * replaced by its digits, with a map back to the original offsets.
 */

const DIGIT: Record<string, string> = {
  zero: "0",
  oh: "0",
  o: "0",
  nought: "0",
  one: "1",
  two: "2",
  three: "3",
  four: "4",
  five: "5",
  six: "6",
  seven: "7",
  eight: "8",
  nine: "9",
};
const REPEAT: Record<string, number> = { double: 2, triple: 3 };

/** Fewer spoken digits in a row are left as words: codes, counts and "one or two" stay text. */
export const MIN_DIGITS = 7;

/** A replaced run: `[from, to)` in the shadow, `[start, end)` in the original. */
interface Run {
  from: number;
  to: number;
  start: number;
  end: number;
}

/** The shadow text and a way back to the original's offsets. */
export interface Shadow {
  text: string;
  /** Maps a shadow span to the original span that covers it (a span inside a run covers the whole run). */
  toOriginal(start: number, end: number): [number, number];
}

const WORD = /[A-Za-z]+/y;
const GAP = /[\s,.-]{1,3}/y;

/** Reads one run of spoken digits starting at `i`: its digits and where it ends, or null. */
function readRun(text: string, i: number): { digits: string; end: number } | null {
  let digits = "";
  let end = i;
  let pos = i;
  let repeat = 1;
  for (;;) {
    WORD.lastIndex = pos;
    const m = WORD.exec(text);
    if (!m) break;
    const w = m[0].toLowerCase();
    if (REPEAT[w] && repeat === 1) repeat = REPEAT[w];
    else if (DIGIT[w] !== undefined && !(w === "o" && digits === "")) {
      digits += DIGIT[w].repeat(repeat);
      repeat = 1;
      end = m.index + m[0].length;
    } else if (w === "hundred" && digits !== "" && repeat === 1) {
      digits += "00"; // "nine hundred" in a phone number is 900
      end = m.index + m[0].length;
    } else break;
    GAP.lastIndex = m.index + m[0].length;
    const g = GAP.exec(text);
    if (!g) break;
    pos = g.index + g[0].length;
  }
  return digits ? { digits, end } : null;
}

/**
 * Builds the shadow of `text` (linear in its length).
 * @returns the {@link Shadow}; equal to `text` when it holds no long run of spoken digits.
 */
export function spokenDigitsShadow(text: string): Shadow {
  const runs: Run[] = [];
  let out = "";
  let copied = 0;
  const word = /[A-Za-z]+/g;
  for (let m = word.exec(text); m; m = word.exec(text)) {
    const w = m[0].toLowerCase();
    if (DIGIT[w] === undefined && REPEAT[w] === undefined) continue;
    const run = readRun(text, m.index);
    if (!run) continue;
    word.lastIndex = run.end;
    if (run.digits.length < MIN_DIGITS) continue;
    out += text.slice(copied, m.index);
    runs.push({ from: out.length, to: out.length + run.digits.length, start: m.index, end: run.end });
    out += run.digits;
    copied = run.end;
  }
  if (runs.length === 0) return { text, toOriginal: (s, e) => [s, e] };
  out += text.slice(copied);
  const map = (offset: number, isEnd: boolean): number => {
    let shift = 0;
    for (const r of runs) {
      if (offset < r.from || (isEnd && offset === r.from)) break;
      if (offset < r.to || (isEnd && offset === r.to)) return isEnd ? r.end : r.start;
      shift = r.end - r.to;
    }
    return offset + shift;
  };
  return { text: out, toOriginal: (s, e) => [map(s, false), map(e, true)] };
}
