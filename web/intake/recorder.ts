/**
 * @module web/intake/recorder
 * Microphone capture for voice answers: getUserMedia with the browser's processing off (auto
 * gain, echo cancellation and noise suppression distort levels; TOOLCHAIN "Audio") and
 * MediaRecorder producing `audio/webm;codecs=opus` where supported.
 */

import { t } from "./i18n.ts";

/** MediaRecorder delivers a chunk this often (ms); live transcription streams them. */
export const TIMESLICE_MS = 500;

const PREFERRED_MIME_TYPES = ["audio/webm;codecs=opus", "audio/webm", "audio/ogg;codecs=opus", "audio/mp4"];

/** Thrown when there is no usable microphone (no API, permission refused, no device). */
export class MicrophoneUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MicrophoneUnavailableError";
  }
}

/** A finished recording. */
export interface Recording {
  blob: Blob;
  /** Length in seconds, measured by the page's clock. */
  durationS: number;
}

/** Whether this browser has the APIs needed to record at all. */
export function canRecordAudio(): boolean {
  return typeof MediaRecorder !== "undefined" && Boolean(navigator.mediaDevices?.getUserMedia);
}

/**
 * Whether the device lists any audio input. Browsers list devices (without labels) before
 * permission is granted, so a machine with no microphone can be told apart up front; when the
 * list cannot be read, this optimistically answers true and `openMicrophone` decides.
 */
export async function hasMicrophone(): Promise<boolean> {
  if (!canRecordAudio()) return false;
  try {
    const devices = await navigator.mediaDevices.enumerateDevices();
    return devices.some((d) => d.kind === "audioinput");
  } catch {
    return true;
  }
}

function pickMimeType(): string | undefined {
  if (typeof MediaRecorder.isTypeSupported !== "function") return undefined;
  return PREFERRED_MIME_TYPES.find((t) => MediaRecorder.isTypeSupported(t));
}

/** Kiosk mode (web/intake/kiosk.ts): the one stream kept open between respondents, and whether to keep one. */
let keptStream: MediaStream | null = null;
let isKeepingMicrophone = false;

/**
 * Kiosk mode: the first grant's stream stays open and each recording gets a clone of it, so the
 * next respondent is not asked again (browsers that forget a grant once its tracks stop would).
 */
export function keepMicrophoneOpen(): void {
  isKeepingMicrophone = true;
}

/** Leaving kiosk mode: stops the kept stream; recordings open the microphone again each time. */
export function releaseKeptMicrophone(): void {
  isKeepingMicrophone = false;
  for (const track of keptStream?.getTracks() ?? []) track.stop();
  keptStream = null;
}

/**
 * Opens the microphone (in kiosk mode, a clone of the kept stream: stopping it leaves the kept one open).
 * @throws MicrophoneUnavailableError when recording is unsupported, refused or has no device
 */
export async function openMicrophone(): Promise<MediaStream> {
  if (keptStream?.getAudioTracks().some((track) => track.readyState === "live")) return keptStream.clone();
  const stream = await requestMicrophone();
  if (!isKeepingMicrophone) return stream;
  keptStream = stream;
  return stream.clone();
}

async function requestMicrophone(): Promise<MediaStream> {
  if (!canRecordAudio()) throw new MicrophoneUnavailableError(t("mic.unsupported"));
  try {
    return await navigator.mediaDevices.getUserMedia({
      audio: { autoGainControl: false, echoCancellation: false, noiseSuppression: false },
    });
  } catch (err) {
    const name = err instanceof DOMException ? err.name : "";
    const message =
      name === "NotAllowedError" || name === "SecurityError"
        ? t("mic.refused")
        : name === "NotFoundError" || name === "OverconstrainedError"
          ? t("mic.notFound")
          : t("mic.failed");
    throw new MicrophoneUnavailableError(message);
  }
}

/**
 * One recording session on an open stream. It stops by itself after `maxDurationS` and
 * releases the microphone when it ends.
 */
export class VoiceRecorder {
  private readonly recorder: MediaRecorder;
  private readonly chunks: Blob[] = [];
  private readonly startedAt = performance.now();
  private readonly finished: Promise<Recording>;
  private readonly timer: ReturnType<typeof setTimeout>;

  /**
   * Starts recording `stream` at once.
   * @param maxDurationS the question's `max_duration` in seconds
   * @param onChunk receives each chunk as it is recorded (every {@link TIMESLICE_MS}; live transcription)
   */
  constructor(
    private readonly stream: MediaStream,
    readonly maxDurationS: number,
    onChunk?: (chunk: Blob) => void,
  ) {
    const mimeType = pickMimeType();
    this.recorder = new MediaRecorder(stream, mimeType ? { mimeType } : undefined);
    this.finished = new Promise((resolve, reject) => {
      this.recorder.addEventListener("dataavailable", (e) => {
        if (e.data.size === 0) return;
        this.chunks.push(e.data);
        onChunk?.(e.data);
      });
      this.recorder.addEventListener("stop", () => {
        this.release();
        const durationS = Math.min((performance.now() - this.startedAt) / 1000, maxDurationS);
        const type = this.recorder.mimeType || mimeType || "audio/webm";
        resolve({ blob: new Blob(this.chunks, { type }), durationS });
      });
      this.recorder.addEventListener("error", () => {
        this.release();
        reject(new Error("Recording failed."));
      });
    });
    this.recorder.start(TIMESLICE_MS);
    this.timer = setTimeout(() => this.stop(), maxDurationS * 1000);
  }

  /** Seconds recorded so far. */
  elapsedS(): number {
    return Math.min((performance.now() - this.startedAt) / 1000, this.maxDurationS);
  }

  /** Whether recording is still running. */
  isRecording(): boolean {
    return this.recorder.state === "recording";
  }

  /** Stops (idempotent) and resolves with the recording. */
  stop(): Promise<Recording> {
    clearTimeout(this.timer);
    if (this.recorder.state !== "inactive") this.recorder.stop();
    return this.finished;
  }

  /** Resolves when the recording ends, by {@link stop} or by reaching the maximum. */
  done(): Promise<Recording> {
    return this.finished;
  }

  private release(): void {
    clearTimeout(this.timer);
    for (const track of this.stream.getTracks()) track.stop();
  }
}
