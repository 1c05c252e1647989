/**
 * The inbox's filter fields (responses.tsx): search, link (on the workspace's inbox), status,
 * dates, sentiment, actionable, topic, a question and its answer value, a hidden field and its
 * value (when the link declares some), and the order. Labels are contracts (DESIGN §10).
 */
import type { Link, Question } from "../../../src/modules/links/model.ts";
import type { Filters } from "./inbox.ts";

/** The fields; `links` is null on a link's own inbox (no "Link" filter there). */
export function FilterFields({
  draft,
  set,
  links,
  questions,
  hiddenFields,
}: {
  draft: Filters;
  set: (k: keyof Filters, v: string) => void;
  links: Link[] | null;
  questions: Question[];
  hiddenFields: string[];
}) {
  return (
    <div class="filters">
      <div class="field wide">
        <label for="f-search">Search</label>
        <input
          id="f-search"
          type="search"
          value={draft.search ?? ""}
          placeholder="Words in answers and transcripts"
          onInput={(e) => set("search", e.currentTarget.value)}
        />
      </div>
      {links && (
        <div class="field">
          <label for="f-link">Link</label>
          <select id="f-link" value={draft.link ?? ""} onChange={(e) => set("link", e.currentTarget.value)}>
            <option value="">All links</option>
            {links.map((l) => (
              <option key={l.uuid} value={l.uuid}>
                {l.name}
              </option>
            ))}
          </select>
        </div>
      )}
      <div class="field">
        <label for="f-status">Status</label>
        <select id="f-status" value={draft.status ?? "completed"} onChange={(e) => set("status", e.currentTarget.value)}>
          <option value="completed">Completed</option>
          <option value="started">Started, not submitted</option>
          <option value="all">All</option>
        </select>
      </div>
      <div class="field">
        <label for="f-since">From</label>
        <input id="f-since" type="date" value={draft.since ?? ""} onInput={(e) => set("since", e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="f-until">To</label>
        <input id="f-until" type="date" value={draft.until ?? ""} onInput={(e) => set("until", e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="f-sentiment">Sentiment</label>
        <select id="f-sentiment" value={draft.sentiment ?? ""} onChange={(e) => set("sentiment", e.currentTarget.value)}>
          <option value="">Any</option>
          <option value="positive">Positive</option>
          <option value="neutral">Neutral</option>
          <option value="negative">Negative</option>
        </select>
      </div>
      <div class="field">
        <label for="f-actionable">Actionable</label>
        <select id="f-actionable" value={draft.actionable ?? ""} onChange={(e) => set("actionable", e.currentTarget.value)}>
          <option value="">Any</option>
          <option value="true">Actionable</option>
          <option value="false">Not actionable</option>
        </select>
      </div>
      <div class="field">
        <label for="f-topic">Topic</label>
        <input id="f-topic" value={draft.topic ?? ""} onInput={(e) => set("topic", e.currentTarget.value)} />
      </div>
      {questions.length > 0 && (
        <>
          <div class="field">
            <label for="f-question">Question</label>
            <select id="f-question" value={draft.question ?? ""} onChange={(e) => set("question", e.currentTarget.value)}>
              <option value="">Any question</option>
              {questions.map((q) => (
                <option key={q.uuid} value={q.field_key}>
                  {q.prompt.slice(0, 60)}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="f-value">Answer value</label>
            <input id="f-value" value={draft.value ?? ""} disabled={!draft.question} onInput={(e) => set("value", e.currentTarget.value)} />
          </div>
        </>
      )}
      {hiddenFields.length > 0 && (
        <>
          <div class="field">
            <label for="f-hidden-field">Hidden field</label>
            <select id="f-hidden-field" value={draft.hidden_field ?? ""} onChange={(e) => set("hidden_field", e.currentTarget.value)}>
              <option value="">Any hidden field</option>
              {hiddenFields.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="f-hidden-value">Hidden value</label>
            <input
              id="f-hidden-value"
              value={draft.hidden_value ?? ""}
              disabled={!draft.hidden_field}
              onInput={(e) => set("hidden_value", e.currentTarget.value)}
            />
          </div>
        </>
      )}
      <div class="field">
        <label for="f-ordering">Sort by</label>
        <select id="f-ordering" value={draft.ordering ?? "-submitted_at"} onChange={(e) => set("ordering", e.currentTarget.value)}>
          <option value="-submitted_at">Newest submitted</option>
          <option value="submitted_at">Oldest submitted</option>
          <option value="-date_created">Newest started</option>
          <option value="date_created">Oldest started</option>
        </select>
      </div>
    </div>
  );
}
