/**
 * @module web/intake/live
 * Live partial transcripts while a voice answer records (`settings.live_transcription`;
 * docs/intake.md "Live transcription"). The recorder's chunks go to the server's WebSocket as
 * binary frames, `{"type":"end"}` follows the last one, and the `partial` and `final` texts are
 * shown in a polite live region named "Live transcript". This is a preview only: when the socket
 * fails, recording and the upload (what is stored) go on unaffected.
 */
import { h } from "./dom.ts";
import { t } from "./i18n.ts";

type ServerMessage = { type: "ready" | "partial" | "final" | "error"; text?: string };

/** The live transcript region of one recorder, reused by each recording. */
export class LiveTranscript {
  /** `role="status"` named "Live transcript"; empty (and visually collapsed) when unused. */
  readonly element = h("p", { class: "live-transcript", role: "status", "aria-label": t("recorder.liveTranscript") });
  private socket: WebSocket | null = null;
  private queue: (Blob | string)[] = [];

  /** @param url the socket URL (`IntakeApi.liveUrl`) */
  constructor(private readonly url: () => string) {}

  /** Opens a socket for a new recording and clears the previous text. */
  start(): void {
    this.close();
    this.element.textContent = "";
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.url());
    } catch {
      return;
    }
    this.socket = socket;
    socket.addEventListener("open", () => {
      for (const frame of this.queue.splice(0)) socket.send(frame);
    });
    socket.addEventListener("message", (e) => {
      let message: ServerMessage;
      try {
        message = JSON.parse(String(e.data)) as ServerMessage;
      } catch {
        return;
      }
      // An empty final (nothing decodable) keeps the last partial.
      if ((message.type === "partial" || message.type === "final") && message.text?.trim()) {
        this.element.textContent = message.text.trim();
      }
    });
    const drop = () => {
      if (this.socket === socket) {
        this.socket = null;
        this.queue = [];
      }
    };
    socket.addEventListener("error", drop);
    socket.addEventListener("close", drop);
  }

  /** Streams one recorded chunk (queued until the socket is open). */
  push(chunk: Blob): void {
    this.send(chunk);
  }

  /** Tells the server the recording ended; it answers with the `final` and closes. */
  end(): void {
    this.send(JSON.stringify({ type: "end" }));
  }

  /** Closes the socket without waiting for a final (leaving the question, recording again). */
  close(): void {
    const socket = this.socket;
    this.socket = null;
    this.queue = [];
    if (socket && socket.readyState <= WebSocket.OPEN) socket.close(1000, "closed by the page");
  }

  private send(frame: Blob | string): void {
    const socket = this.socket;
    if (!socket) return;
    if (socket.readyState === WebSocket.OPEN) socket.send(frame);
    else if (socket.readyState === WebSocket.CONNECTING) this.queue.push(frame);
  }
}
