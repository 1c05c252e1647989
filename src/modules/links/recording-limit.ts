/**
 * @module links/recording-limit
 * The longest recording a voice question accepts (DESIGN §9): its `max_duration` + 2 s. Read by
 * the upload check and the live transcriber (intake) and by the `transcribe` job (responses).
 */
import { recordingLimitS } from "../../ai/audio-common.ts";

/** `max_duration` when a voice question's configuration has none (question-model.ts default). */
const DEFAULT_MAX_DURATION_S = 120;

/**
 * The longest recording a question accepts, seconds: its `max_duration` (default 120) + 2.
 * @param q a stored question (its `configuration` is JSON text)
 */
export function questionRecordingLimitS(q: { configuration: string }): number {
  const configured = Number((JSON.parse(q.configuration) as { max_duration?: unknown }).max_duration);
  return recordingLimitS(Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_MAX_DURATION_S);
}
