/**
 * @module web/intake/api
 * Client of the public intake API (docs/intake.md). Every method resolves with the parsed JSON
 * body or rejects with an {@link ApiError} carrying the RFC 9457 problem (DESIGN §4).
 */
import type { AnswerState, AnswerValue, FollowUp, ProbeResult, PublicLink, Session, SubmitResult } from "./types.ts";

/** One entry of a problem's `errors` list. */
export interface ProblemPointer {
  pointer: string;
  message: string;
}

/** A failed request: HTTP status plus the problem's `code`, `detail` and `errors`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: ProblemPointer[] = [],
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** Typed calls against one link's intake base URL. */
export interface IntakeApi {
  getLink(): Promise<{ link: PublicLink }>;
  /**
   * Starts a session; with the personal URL's invitation it starts, or resumes, that invitation's response.
   * `consent`: agrees to `settings.consent` as the session starts (`language`: whose translation was shown).
   */
  startSession(consent?: { language: string | null }): Promise<Session>;
  /** Agrees to `settings.consent` before recording (issue 25). */
  giveConsent(sessionId: string, language: string | null): Promise<{ given_at: string; text_sha256: string }>;
  getSession(sessionId: string): Promise<Session>;
  saveAnswer(sessionId: string, questionUuid: string, value: AnswerValue): Promise<AnswerState>;
  uploadAudio(sessionId: string, questionUuid: string, audio: Blob, durationS: number): Promise<AnswerState>;
  uploadFile(sessionId: string, questionUuid: string, file: File): Promise<AnswerState>;
  submit(sessionId: string): Promise<SubmitResult>;
  probe(sessionId: string, questionUuid: string): Promise<ProbeResult>;
  answerFollowUp(sessionId: string, questionUuid: string, index: number, value: string): Promise<{ follow_ups: FollowUp[] }>;
  uploadFollowUpAudio(sessionId: string, questionUuid: string, index: number, audio: Blob): Promise<{ follow_ups: FollowUp[] }>;
  /** The `ws:`/`wss:` URL of the live transcription socket for a voice question. */
  liveUrl(sessionId: string, questionUuid: string): string;
}

async function request<T>(url: string, init: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, headers: { Accept: "application/json", ...init.headers } });
  } catch {
    throw new ApiError(0, "NETWORK", "The connection failed. Check your network and try again.");
  }
  const body: unknown = await res.json().catch(() => null);
  if (res.ok) return body as T;
  const problem = (body ?? {}) as { code?: string; detail?: string; title?: string; errors?: ProblemPointer[] };
  throw new ApiError(
    res.status,
    problem.code ?? `HTTP_${res.status}`,
    problem.detail ?? problem.title ?? `The server answered ${res.status}.`,
    Array.isArray(problem.errors) ? problem.errors : [],
  );
}

function json(method: string, body: unknown): RequestInit {
  return { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
}

/** A raw recording upload; the server sniffs the bytes, so MIME parameters are dropped. */
function audioBody(audio: Blob): RequestInit {
  return { method: "POST", headers: { "Content-Type": (audio.type || "audio/webm").split(";")[0]! }, body: audio };
}

/**
 * Builds the client for `apiBase` (e.g. `/api/v1/intake/acme/nps/`, trailing slash included).
 * @param invitation the personal URL's `inv` token (DESIGN §13), sent when a session starts
 * @param hidden the hidden-field values sent when the session starts (web/intake/hidden.ts)
 */
export function createIntakeApi(apiBase: string, invitation: string | null = null, hidden: ReadonlyMap<string, string> = new Map()): IntakeApi {
  const base = apiBase.endsWith("/") ? apiBase : `${apiBase}/`;
  const session = (id: string) => `${base}sessions/${encodeURIComponent(id)}/`;
  const answer = (id: string, q: string) => `${session(id)}answers/${encodeURIComponent(q)}/`;
  return {
    getLink: () => request(base, { method: "GET" }),
    startSession: (consent) =>
      request(
        `${base}sessions/`,
        json("POST", {
          ...(hidden.size ? { hidden: Object.fromEntries(hidden) } : {}),
          ...(invitation ? { invitation } : {}),
          ...(consent ? { consent } : {}),
        }),
      ),
    giveConsent: (id, language) => request(`${session(id)}consent/`, json("POST", { language })),
    getSession: (id) => request(session(id), { method: "GET" }),
    saveAnswer: (id, q, value) => request(answer(id, q), json("PUT", { value })),
    uploadAudio: (id, q, audio, durationS) => request(`${answer(id, q)}audio/?duration=${encodeURIComponent(durationS.toFixed(2))}`, audioBody(audio)),
    uploadFile: (id, q, file) => {
      const form = new FormData();
      form.append("file", file, file.name);
      return request(`${answer(id, q)}file/`, { method: "POST", body: form });
    },
    submit: (id) => request(`${session(id)}submit/`, json("POST", {})),
    probe: (id, q) => request(`${answer(id, q)}probe/`, json("POST", {})),
    answerFollowUp: (id, q, index, value) => request(`${answer(id, q)}follow-ups/${index}/`, json("PUT", { value })),
    uploadFollowUpAudio: (id, q, index, audio) => request(`${answer(id, q)}follow-ups/${index}/audio/`, audioBody(audio)),
    liveUrl: (id, q) => {
      const url = new URL(`${session(id)}live/?question_uuid=${encodeURIComponent(q)}`, location.href);
      url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
      return url.href;
    },
  };
}
