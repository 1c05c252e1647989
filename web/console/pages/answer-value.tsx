/**
 * A typed answer's value on the response page (response.tsx), by question type: rating with its
 * scale, choices, the chosen image card, yes/no, dates, numbers, files with their size, emails
 * and text.
 */
import type { Answer } from "../../../src/modules/responses/model.ts";

export const STATUS_TEXT: Record<Answer["transcription_status"], string> = {
  pending: "Waiting to be transcribed",
  processing: "Transcribing…",
  completed: "Transcribed",
  failed: "Transcription failed",
  not_applicable: "",
  waiting_for_model: "Waiting for the speech model",
};

/** A file size in KB (at least 1) or MB. */
function formatSize(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A typed answer's value in words (voice answers are drawn by VoiceAnswer). */
export function Value({ a }: { a: Answer }) {
  const v = a.value;
  if (v === null || v === undefined || (Array.isArray(v) && v.length === 0)) return <p class="muted">No answer</p>;
  switch (a.response_type) {
    case "rating": {
      const d = a.rating_details;
      const n = Number(v);
      if (d?.scale_type === "stars")
        return (
          <p class="rating">
            <span aria-hidden="true" class="stars">
              {"★".repeat(Math.max(0, n))}
              <span class="stars-off">{"★".repeat(Math.max(0, d.max_value - n))}</span>
            </span>{" "}
            <span>
              {n} of {d.max_value} stars
            </span>
          </p>
        );
      return (
        <p class="big-number">
          {n}
          <span class="muted small"> {d?.scale_type === "nps" ? "of 10 (NPS)" : `of ${d?.max_value ?? ""}`}</span>
        </p>
      );
    }
    case "multiple_choice":
      return (
        <ul class="tags chosen">
          {(Array.isArray(v) ? v : [v]).map((o) => (
            <li key={String(o)}>{String(o)}</li>
          ))}
        </ul>
      );
    case "image_choice": {
      const c = a.selected_card;
      if (!c) return <p>{String(v)}</p>;
      return (
        <figure class="chosen-card">
          {c.media_type === "video" ? (
            <video src={c.media_url} controls preload="metadata" aria-label={c.label} />
          ) : (
            <img src={c.media_url} alt={c.label} loading="lazy" />
          )}
          <figcaption>{c.label}</figcaption>
        </figure>
      );
    }
    case "yes_no":
      return <p class="strong">{v === true ? "Yes" : v === false ? "No" : String(v)}</p>;
    case "date": {
      const d = new Date(`${String(v)}T00:00:00`);
      return <p>{Number.isNaN(d.getTime()) ? String(v) : <time dateTime={String(v)}>{d.toLocaleDateString(undefined, { dateStyle: "long" })}</time>}</p>;
    }
    case "file_upload": {
      const f = a.file;
      if (!f) return <p class="muted">No file</p>;
      return (
        <p>
          <a href={f.url} download={f.name}>
            Download {f.name}
          </a>{" "}
          <span class="muted small">
            ({f.content_type}, {formatSize(f.size)})
          </span>
        </p>
      );
    }
    case "email":
      return (
        <p>
          <a href={`mailto:${String(v)}`}>{String(v)}</a>
        </p>
      );
    default:
      return <p class="answer-text">{typeof v === "object" ? JSON.stringify(v) : String(v)}</p>;
  }
}
