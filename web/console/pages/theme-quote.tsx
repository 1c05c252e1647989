/**
 * @module web/console/pages/theme-quote
 * A theme's quote (DESIGN §12 `quotes`): the words, and for a voice answer a "Play quote" button
 * that plays exactly the quote's span of the recording — the `audio` element loads the signed
 * `audio_url` on the first play, seeks to `start_s` and is paused at `end_s` — with the span shown as text and a link to the response. One quote
 * plays at a time.
 */
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { formatSpan, isPlayable, type Quote } from "../themes.ts";

/** Resolves when `el` fires `event` once (or rejects on an `error` event). */
function once(el: HTMLMediaElement, event: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const ok = () => (el.removeEventListener("error", bad), resolve());
    const bad = () => (el.removeEventListener(event, ok), reject(new Error("media error")));
    el.addEventListener(event, ok, { once: true });
    el.addEventListener("error", bad, { once: true });
  });
}

/**
 * Plays `[start, end)` seconds of `audio`: loads it when needed (the element waits with
 * `preload="none"` so a page of quotes fetches no recording until one is played), seeks to
 * `start`, plays, and pauses once `currentTime` reaches `end` (checked every animation frame,
 * as `timeupdate` comes only every ~250 ms).
 * @throws when the recording cannot be loaded or played
 */
async function playSpan(audio: HTMLAudioElement, start: number, end: number): Promise<void> {
  for (const other of document.querySelectorAll<HTMLAudioElement>("audio[data-quote]")) if (other !== audio) other.pause();
  if (audio.readyState < HTMLMediaElement.HAVE_METADATA) {
    audio.preload = "auto";
    const loaded = once(audio, "loadedmetadata");
    audio.load();
    await loaded;
  }
  if (Math.abs(audio.currentTime - start) > 0.01) {
    const seeked = once(audio, "seeked");
    audio.currentTime = start;
    await seeked;
  }
  await audio.play();
  const watch = () => {
    if (audio.paused) return;
    if (audio.currentTime >= end) {
      audio.pause();
      return;
    }
    requestAnimationFrame(watch);
  };
  requestAnimationFrame(watch);
}

/** One quote: its text, and its play button when it comes from a recording. */
export function QuoteItem({ q, showLink = true }: { q: Quote; showLink?: boolean }) {
  const textId = useId();
  const ref = useRef<HTMLAudioElement>(null);
  const [playing, setPlaying] = useState(false);
  const [failed, setFailed] = useState(false);
  useEffect(() => () => ref.current?.pause(), []);
  const toggle = async () => {
    const audio = ref.current;
    if (!audio || !isPlayable(q)) return;
    if (playing) {
      audio.pause();
      return;
    }
    setFailed(false);
    // The src is set here, not in the markup: each poll of the page brings a freshly signed URL,
    // and a changed src would reload the element and cut a quote off mid-play. A recording
    // already loaded is reused; a new one (or one that failed, e.g. an expired URL) takes the
    // latest URL.
    const recording = q.audio_url.split(/[?#]/)[0]!;
    if (audio.dataset.recording !== recording || audio.error) {
      audio.src = q.audio_url;
      audio.dataset.recording = recording;
    }
    try {
      await playSpan(audio, q.start_s, q.end_s);
    } catch {
      delete audio.dataset.recording;
      setPlaying(false);
      setFailed(true);
    }
  };
  return (
    <li class="quote">
      <blockquote id={textId}>{q.text}</blockquote>
      <div class="quote-meta small">
        {isPlayable(q) && (
          <>
            <button type="button" class="button-secondary play" aria-describedby={textId} onClick={toggle}>
              <span aria-hidden="true">{playing ? "■ " : "▶ "}</span>
              {playing ? "Stop quote" : "Play quote"}
            </button>
            <span class="muted">{formatSpan(q.start_s, q.end_s)}</span>
            <audio ref={ref} data-quote="" preload="none" onPlay={() => setPlaying(true)} onPause={() => setPlaying(false)} onEnded={() => setPlaying(false)} />
          </>
        )}
        {showLink && <a href={`/console/responses/${q.response_uuid}/`}>Open response</a>}
      </div>
      {failed && (
        <p class="small" role="alert">
          The recording could not be played.
        </p>
      )}
    </li>
  );
}
