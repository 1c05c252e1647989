/**
 * Small building blocks every console page uses: loading data, showing errors, times,
 * pagination, copy-able read-only fields and a confirmation dialog. All controls are native
 * elements (buttons, inputs, `<dialog>`), so keyboard use and accessible names come for free.
 */
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useId, useRef, useState } from "preact/hooks";
import { ApiError } from "./api.ts";

/** State of one asynchronous load. */
export type Load<T> = { data: T | null; error: ApiError | null; loading: boolean; reload: () => void };

/**
 * Runs `fn` now and whenever `deps` change; keeps the last data while reloading.
 * A late answer of an older call is dropped.
 */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]): Load<T> {
  const [state, setState] = useState<{ data: T | null; error: ApiError | null; loading: boolean }>({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  const seq = useRef(0);
  useEffect(() => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    // A loader that throws at once (apiPath refusing a parameter) fails like one that rejects.
    let loading: Promise<T>;
    try {
      loading = fn();
    } catch (err) {
      loading = Promise.reject(err);
    }
    loading.then(
      (data) => mine === seq.current && setState({ data, error: null, loading: false }),
      (err: unknown) => mine === seq.current && setState((s) => ({ data: s.data, error: toApiError(err), loading: false })),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** Any thrown value as an ApiError (programming errors keep their message). */
export function toApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError(0, "CLIENT_ERROR", err instanceof Error ? err.message : String(err));
}

/** Explains an API error; 403 INSUFFICIENT_SCOPE in words a person understands. */
export function ErrorNote({ error }: { error: ApiError | null }) {
  if (!error) return null;
  const text =
    error.code === "INSUFFICIENT_SCOPE"
      ? `Your role does not allow this. ${error.message}`
      : error.code === "RATE_LIMITED" && error.retryAfter
        ? `${error.message} Try again in ${error.retryAfter} s.`
        : error.message;
  // A validation problem's detail repeats its first issue ("The request is not valid: /url Must be …"),
  // which the list below names already, with every other one: the headline keeps the sentence only.
  const headline = error.errors.length > 0 ? text.replace(/^(The [^:]+ is not valid): [\s\S]*$/, "$1.") : text;
  return (
    <div class="note note-error" role="alert">
      <p>{headline}</p>
      {error.errors.length > 0 && (
        <ul>
          {error.errors.map((e) => (
            <li key={`${e.pointer}${e.message ?? e.detail}`}>
              {e.pointer ? `${e.pointer.replace(/^\//, "")}: ` : ""}
              {e.message ?? e.detail}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A success message that screen readers announce. */
export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <div class="note note-ok" role="status">
      {children}
    </div>
  );
}

/**
 * How a {@link useAction} run ended, under its form: the error explained ({@link ErrorNote}), or
 * the success message announced ({@link Notice}); nothing before the first run.
 */
export function ActionOutcome({ action }: { action: { error: ApiError | null; message: string } }) {
  return (
    <>
      <ErrorNote error={action.error} />
      {action.message && (
        <Notice>
          <p>{action.message}</p>
        </Notice>
      )}
    </>
  );
}

const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 30],
  ["month", 12],
  ["year", Infinity],
];

/** "3 minutes ago", "yesterday", … for an ISO timestamp. */
export function relativeTime(iso: string, now = Date.now()): string {
  let value = (Date.parse(iso) - now) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(value) < size) return RELATIVE.format(Math.round(value), unit);
    value /= size;
  }
  return iso;
}

// Formatters are made once: building one per call (toLocaleString with options) is slow.
const EXACT = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });
const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

/** Local date and time, to the second. */
export function exactTime(iso: string): string {
  return EXACT.format(new Date(iso));
}

/** A timestamp shown relatively (or as a date), with the exact time on hover. */
export function Time({ iso, mode = "relative", empty = "Never" }: { iso: string | null | undefined; mode?: "relative" | "date"; empty?: string }) {
  if (!iso) return <span class="muted">{empty}</span>;
  const exact = exactTime(iso);
  const text = mode === "relative" ? relativeTime(iso) : DATE.format(new Date(iso));
  return (
    <time dateTime={iso} title={exact}>
      {text}
    </time>
  );
}

/** Previous / next for a paginated list; `label` names the list for screen readers. */
export function Pager({ page, count, pageSize, onPage, label }: { page: number; count: number; pageSize: number; onPage: (p: number) => void; label: string }) {
  const last = Math.max(1, Math.ceil(count / pageSize));
  if (last <= 1) return null;
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" class="button-secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous page
      </button>
      <span>
        Page {page} of {last}
      </span>
      <button type="button" class="button-secondary" disabled={page >= last} onClick={() => onPage(page + 1)}>
        Next page
      </button>
    </nav>
  );
}

/** Copies text to the clipboard; falls back to selecting the field when the API is missing. */
export function CopyButton({ text, targetId, label = "Copy" }: { text: string; targetId?: string; label?: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone(true);
      setTimeout(() => setDone(false), 2000);
    } catch {
      const el = targetId ? (document.getElementById(targetId) as HTMLInputElement | HTMLTextAreaElement | null) : null;
      el?.focus();
      el?.select();
    }
  };
  return (
    <>
      <button type="button" class="button-secondary" onClick={copy}>
        {label}
      </button>
      <span class="copied" role="status">
        {done ? "Copied" : ""}
      </span>
    </>
  );
}

/**
 * A read-only field with a Copy button, for secrets shown once. `multiline`: a box as tall as its
 * text (a command); `wrap`: one value that wraps to as many lines as it needs instead of scrolling out of
 * sight (a URL to read and register on a phone).
 */
export function SecretField({ label, value, multiline = false, wrap = false }: { label: string; value: string; multiline?: boolean; wrap?: boolean }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <div class="copy-row">
        {multiline || wrap ? (
          <textarea id={id} readOnly rows={multiline ? 3 : 1} value={value} class="mono fit" onFocus={(e) => e.currentTarget.select()} />
        ) : (
          <input id={id} readOnly value={value} class="mono" onFocus={(e) => e.currentTarget.select()} />
        )}
        <CopyButton text={value} targetId={id} />
      </div>
    </div>
  );
}

/**
 * A modal confirmation (`<dialog>`): focus moves into it, Escape cancels, focus returns to the
 * opener when it closes.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  /** False: only the confirm button (a dialog that just shows something). */
  cancellable?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby={titleId} onCancel={(e) => (e.preventDefault(), props.onCancel())}>
      <h2 id={titleId}>{props.title}</h2>
      <div class="dialog-body">{props.children}</div>
      <div class="actions">
        <button type="button" class={props.danger ? "button-danger" : ""} disabled={props.busy} onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
        {props.cancellable !== false && (
          <button type="button" class="button-secondary" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </dialog>
  );
}

/** Shown while the first load of a section runs. */
export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** Runs a form submit as one API call, with busy/error/message state. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [message, setMessage] = useState("");
  const run = async (done: string, fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    setMessage("");
    try {
      await fn();
      setMessage(done);
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, message, run };
}

/** A horizontally scrollable table container; focusable so keyboard users can scroll it. */
export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}
