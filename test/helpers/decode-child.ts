/**
 * @module test/helpers/decode-child
 * Run as a child process by test/integration/audio-bombs.test.ts: reads one recording, runs the
 * upload check and the decoder on it with a limit, and prints one JSON line with both outcomes
 * and the process's peak resident memory (VmHWM), so a hostile file's cost is measured alone.
 * Usage: bun test/helpers/decode-child.ts FILE LIMIT_S
 */
import { readFileSync } from "node:fs";
import { assertRecordingFits, AudioDecodeError, decodeAudio } from "../../src/ai/audio.ts";

const [file, limit] = process.argv.slice(2);
const limitS = Number(limit);
const bytes = new Uint8Array(readFileSync(file!));

const outcome = (err: unknown): string => (err instanceof AudioDecodeError ? `${err.name}: ${err.reason}` : `crash: ${String(err)}`);
const check = await assertRecordingFits(bytes, limitS).then(() => "ok", outcome);
const decode = await decodeAudio(bytes, { maxDurationS: limitS }).then((a) => `ok ${a.durationS.toFixed(1)}`, outcome);
const peakKb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))?.[1]);
process.stdout.write(`${JSON.stringify({ check, decode, peakRssMb: Math.round(peakKb / 1024) })}\n`);
