/**
 * @module bench/data/asr/generate
 * Regenerates the ASR benchmark set: each sentence below spoken by espeak-ng (its default
 * English voice, 160 words per minute) as `NN-name.wav` (22.05 kHz mono 16-bit, exactly what
 * espeak-ng writes, so the benchmark also exercises resampling to 16 kHz) and its reference
 * transcript `NN-name.txt`. Needs the Debian package `espeak-ng`.
 *
 *   npx bun bench/data/asr/generate.ts
 */
import { writeFileSync } from "node:fs";
import path from "node:path";

/** Product-feedback sentences, the kind of answers Earshot transcribes. */
export const SENTENCES: Record<string, string> = {
  "01-checkout": "The checkout page froze when I tried to pay with my credit card.",
  "02-export": "Please add an export button so I can download the monthly report.",
  "03-support": "Your support team answered within ten minutes and fixed my problem.",
  "04-search": "Search results are slow and often miss the document I am looking for.",
  "05-mobile": "On my phone the menu covers half of the screen and I cannot close it.",
  "06-pricing": "The new pricing is confusing because the plans look almost the same.",
  "07-dashboard": "I really like the new dashboard, it is clean and easy to read.",
  "08-login": "I get logged out every morning and have to reset my password again.",
  "09-onboarding": "The onboarding video was helpful but it could be a little shorter.",
  "10-notifications": "Too many email notifications, let me choose which ones I receive.",
};

const WORDS_PER_MINUTE = "160";

if (import.meta.main) {
  for (const [name, text] of Object.entries(SENTENCES)) {
    const wav = path.join(import.meta.dir, `${name}.wav`);
    const run = Bun.spawnSync(["espeak-ng", "-s", WORDS_PER_MINUTE, "-w", wav, text]);
    if (run.exitCode !== 0) throw new Error(`espeak-ng failed for ${name}: ${run.stderr}`);
    writeFileSync(path.join(import.meta.dir, `${name}.txt`), text + "\n");
  }
  console.log(`wrote ${Object.keys(SENTENCES).length} recordings and transcripts to ${import.meta.dir}`);
}
