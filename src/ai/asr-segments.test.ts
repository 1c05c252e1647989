/**
 * Whisper's segments as kept with each voice transcript (DESIGN §12 `segments`): the pipeline's
 * timestamped chunks, the recording's end for an open last chunk, and one segment for the whole
 * recording when the model gave no timestamps.
 */
import { expect, test } from "bun:test";
import { segmentsOf } from "./asr.ts";

test("timestamped chunks become segments; an open end is the recording's end; times stay inside the recording", () => {
  const chunks = [
    { text: " The checkout was slow.", timestamp: [0, 2.5] as [number, number] },
    { text: " ", timestamp: [2.5, 3] as [number, number] },
    { text: " Shipping cost too much.", timestamp: [2.5, null] as [number, null] },
  ];
  expect(segmentsOf(chunks, "The checkout was slow. Shipping cost too much.", 4.2)).toEqual([
    { start_s: 0, end_s: 2.5, text: "The checkout was slow." },
    { start_s: 2.5, end_s: 4.2, text: "Shipping cost too much." },
  ]);
  expect(segmentsOf([{ text: "late", timestamp: [9, 12] }], "late", 10)).toEqual([{ start_s: 9, end_s: 10, text: "late" }]);
  // whisper.cpp's start read from a text token: before the recording, clamped to its start.
  expect(segmentsOf([{ text: "early", timestamp: [-1007.26, 7.331] }], "early", 10)).toEqual([{ start_s: 0, end_s: 7.331, text: "early" }]);
});

test("no timestamps: one segment covers the whole recording; silence has none", () => {
  expect(segmentsOf(undefined, "Hello there.", 1.5)).toEqual([{ start_s: 0, end_s: 1.5, text: "Hello there." }]);
  expect(segmentsOf([{ text: "Hello there." }], "Hello there.", 1.5)).toEqual([{ start_s: 0, end_s: 1.5, text: "Hello there." }]);
  expect(segmentsOf([], "", 3)).toEqual([]);
});
