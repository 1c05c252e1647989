/**
 * @module web/intake/record-widget
 * The recorder control shared by voice questions and their follow-ups: one button records,
 * stops and records again (its name holds "Record" or "Stop"), a status line announces the
 * state, a timer shows the time left, recording stops by itself at `maxS`, and the recording is
 * handed to `upload` as soon as it stops. With `liveUrl` the chunks are also streamed for a live
 * transcript ({@link LiveTranscript}). The preview player shows the recorded length: MediaRecorder's
 * WebM has no duration header, so the length measured while recording is shown next to it and the
 * element's own duration is resolved by seeking to the end once.
 */
import { h } from "./dom.ts";
import { LiveTranscript } from "./live.ts";
import { MicrophoneUnavailableError, openMicrophone, VoiceRecorder, type Recording } from "./recorder.ts";
import { respondentMessage } from "./messages.ts";
import { clock, t } from "./i18n.ts";

const TICK_MS = 200;

export type RecordPhase = "idle" | "requesting" | "recording" | "uploading" | "saved" | "error";

export interface RecordWidgetOptions {
  maxS: number;
  /** A recording is already stored (resume): start in the "saved" phase. */
  saved: boolean;
  /** Stores the recording; a rejection shows its message. */
  upload(recording: Recording): Promise<void>;
  /** Status text while idle. */
  idleText(): string;
  /** Status text once a recording is stored. */
  savedText(): string;
  /**
   * The microphone could not be used (`message` says why). Return a status text to show, or
   * null when the caller took over (e.g. switched to typing).
   */
  onMicrophoneProblem(message: string): string | null;
  /** Upload errors (null clears), so Next/Submit can report them. */
  onError?(message: string | null): void;
  /** Lets Next/Submit wait for a recording and its upload. */
  track?(operation: Promise<void>): void;
  /** The live transcription socket's URL when `live_transcription` is on. */
  liveUrl?: () => string;
  /**
   * Runs before the microphone is asked for (the consent prompt, issue 25): null goes on; a text
   * stops and shows it; false stops silently (the caller took over, e.g. switched to typing).
   */
  beforeMicrophone?: () => Promise<string | null | false>;
  /** Runs before a live transcript opens (starts the session the socket belongs to). */
  prepareLive?: () => Promise<void>;
}

export interface RecordWidget {
  /** The recorder row, the status line, the live transcript (if any) and the preview player. */
  element: HTMLElement;
  button: HTMLButtonElement;
  phase(): RecordPhase;
  /** Re-renders; `message` overrides the phase's status text. */
  update(message?: string): void;
  /** Stops a running recording and waits for its upload. */
  settle(): Promise<void>;
  dispose(): void;
}

/** Builds a recorder control. */
export function recordWidget(opts: RecordWidgetOptions): RecordWidget {
  let phase: RecordPhase = opts.saved ? "saved" : "idle";
  let recorder: VoiceRecorder | null = null;
  let pending: Promise<void> | null = null;
  let ticker: ReturnType<typeof setInterval> | undefined;
  let previewUrl: string | null = null;
  let failure: string | null = null;
  const live = opts.liveUrl ? new LiveTranscript(opts.liveUrl) : null;

  const button = h("button", { type: "button", class: "record-button" });
  const timer = h("span", { class: "record-timer", "aria-hidden": "true" });
  const status = h("p", { class: "status", role: "status", "aria-live": "polite" });
  const player = h("audio", { class: "record-player", controls: true, preload: "metadata" });
  const length = h("span", { class: "record-length", "aria-hidden": "true" });
  const preview = h("div", { class: "record-preview" }, player, length);
  const element = h(
    "div",
    { class: "record-widget" },
    h("div", { class: "recorder" }, button, h("span", { class: "record-dot", "aria-hidden": "true" }), timer),
    status,
    live?.element,
    preview,
  );
  // The measured length shows beside the player until the player knows the duration itself.
  player.addEventListener("durationchange", () => (length.hidden = Number.isFinite(player.duration) && player.duration > 0));
  // A WebM without a duration reports Infinity until the player has seen its end: seek there once.
  player.addEventListener("loadedmetadata", () => {
    if (Number.isFinite(player.duration)) return;
    const rewind = () => {
      if (!Number.isFinite(player.duration)) return;
      player.removeEventListener("durationchange", rewind);
      player.currentTime = 0;
    };
    player.addEventListener("durationchange", rewind);
    player.currentTime = Number.MAX_SAFE_INTEGER;
  });

  function update(message?: string): void {
    element.dataset.phase = phase;
    button.disabled = phase === "requesting" || phase === "uploading";
    button.classList.toggle("is-recording", phase === "recording");
    button.textContent = phase === "recording" ? t("recorder.stop") : phase === "saved" || phase === "error" ? t("recorder.again") : t("recorder.record");
    timer.textContent = phase === "recording" && recorder ? `${clock(recorder.elapsedS())} / ${clock(opts.maxS)}` : "";
    status.textContent =
      message ??
      {
        idle: opts.idleText(),
        requesting: t("recorder.requesting"),
        recording: t("recorder.recording"),
        uploading: t("recorder.uploading"),
        saved: opts.savedText(),
        error: failure ?? t("recorder.saveFailed"),
      }[phase];
    preview.hidden = !(phase === "saved" && previewUrl);
  }

  function fail(message: string): void {
    failure = message;
    opts.onError?.(message);
    phase = "error";
    update();
  }

  async function upload(recording: Recording): Promise<void> {
    recorder = null;
    clearInterval(ticker);
    live?.end();
    if (recording.blob.size === 0) return fail(t("recorder.empty"));
    phase = "uploading";
    update();
    try {
      await opts.upload(recording);
    } catch (err) {
      return fail(respondentMessage(err, { recordingMaxS: opts.maxS }));
    }
    if (previewUrl) URL.revokeObjectURL(previewUrl);
    previewUrl = URL.createObjectURL(recording.blob);
    length.hidden = false;
    player.src = previewUrl;
    length.textContent = clock(Math.max(1, Math.round(recording.durationS)));
    player.setAttribute("aria-label", t("recorder.yourRecording", { length: length.textContent }));
    phase = "saved";
    update();
  }

  function giveUp(message: string): void {
    phase = "idle";
    const shown = opts.onMicrophoneProblem(message);
    if (shown !== null) update(shown);
  }

  async function start(): Promise<void> {
    failure = null;
    opts.onError?.(null);
    phase = "requesting";
    if (opts.beforeMicrophone) {
      // While a consent prompt may be open, it is what the respondent reads: no "Waiting for the
      // microphone…" before they have agreed to be recorded.
      update("");
      let refusal: string | null | false;
      try {
        refusal = await opts.beforeMicrophone();
      } catch (err) {
        return fail(respondentMessage(err));
      }
      if (refusal !== null) {
        phase = "idle";
        if (refusal !== false) update(refusal);
        return;
      }
    }
    update();
    if (live && opts.prepareLive) {
      try {
        await opts.prepareLive();
      } catch (err) {
        return fail(respondentMessage(err));
      }
    }
    let stream: MediaStream;
    try {
      stream = await openMicrophone();
    } catch (err) {
      return giveUp(err instanceof MicrophoneUnavailableError ? err.message : t("mic.failed"));
    }
    live?.start();
    try {
      recorder = new VoiceRecorder(stream, opts.maxS, live ? (chunk) => live.push(chunk) : undefined);
    } catch {
      for (const track of stream.getTracks()) track.stop();
      live?.close();
      return giveUp(t("mic.unsupported"));
    }
    phase = "recording";
    ticker = setInterval(() => update(), TICK_MS);
    update();
    pending = recorder.done().then(upload, () => {
      recorder = null;
      clearInterval(ticker);
      live?.close();
      fail(t("recorder.failed"));
    });
    opts.track?.(pending);
  }

  button.addEventListener("click", () => {
    if (phase === "recording") void recorder?.stop();
    else void start();
  });
  update();

  return {
    element,
    button,
    phase: () => phase,
    update,
    async settle() {
      if (recorder?.isRecording()) void recorder.stop();
      await pending;
    },
    dispose() {
      if (recorder?.isRecording()) void recorder.stop();
      clearInterval(ticker);
      live?.close();
      if (previewUrl) URL.revokeObjectURL(previewUrl);
    },
  };
}
